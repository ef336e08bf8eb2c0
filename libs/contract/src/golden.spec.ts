import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { evolve } from './evolve.js';
import { initialState, type InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import type { RecordView } from './record-view.js';
import { toRecordView } from './to-record-view.js';

/**
 * Recorded journals replayed through the fold. A change to an event's shape
 * or to evolve that would read an old journal differently fails here.
 */
interface Fixture {
  description: string;
  now: string;
  events: StoredEvent[];
  expected: RecordView;
}

const dir = new URL('./fixtures/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort();

describe('golden journals', () => {
  it('has recorded journals to replay', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
  });

  for (const file of files) {
    const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Fixture;

    it(`${file}: ${fixture.description}`, () => {
      let state: InvocationState = initialState(fixture.events[0]!.invocation_id);
      for (const event of fixture.events) {
        const result = evolve(state, event);
        if (!result.ok) throw new Error(`${file} n=${event.n} ${event.type}: ${result.anomaly.reason} ${result.anomaly.message}`);
        state = result.state;
      }
      expect(toRecordView(state, Date.parse(fixture.now))).toEqual(fixture.expected);
    });

    it(`${file}: replays the same from a JSON-stored midpoint`, () => {
      const half = Math.floor(fixture.events.length / 2);
      let state: InvocationState = initialState(fixture.events[0]!.invocation_id);
      fixture.events.forEach((event, i) => {
        if (i === half) state = JSON.parse(JSON.stringify(state)) as InvocationState;
        const result = evolve(state, event);
        if (result.ok) state = result.state;
      });
      expect(toRecordView(state, Date.parse(fixture.now))).toEqual(fixture.expected);
    });

    it(`${file}: no event carries a diagnostic into the view`, () => {
      let state: InvocationState = initialState(fixture.events[0]!.invocation_id);
      for (const event of fixture.events) {
        const result = evolve(state, event);
        if (result.ok) state = result.state;
      }
      const view = JSON.stringify(toRecordView(state, Date.parse(fixture.now)));
      for (const event of fixture.events) {
        const diagnostic = event.data['diagnostic'];
        if (typeof diagnostic === 'string') expect(view).not.toContain(diagnostic);
      }
    });
  }
});
