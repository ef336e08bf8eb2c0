import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AnomalyReason } from './anomaly.js';
import { CODES } from './code.js';
import { EVENT_TYPES, EventType } from './event-type.js';
import { EVIDENCE_SOURCES } from './evidence-source.js';
import { evolve } from './evolve.js';
import { EventStream, testBinding } from './fixtures/event-builder.js';
import { initialState, type InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { OUTCOMES, Outcome } from './outcome.js';
import { PHASES } from './phase.js';
import { RETRIES } from './retry.js';
import { DEFERRED_RETRIES } from './retry-rule.js';
import { STAGES } from './stage.js';

const RUNS = { numRuns: 400 };

const stepArb = fc.record({
  // Weighted toward the dispatch life cycle so that walks reach the states the invariants are about.
  type: fc.oneof(
    { arbitrary: fc.constantFrom(...EVENT_TYPES), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        EventType.DISPATCH_STARTED,
        EventType.REMOTE_RESPONSE_COMPLETE,
        EventType.REMOTE_OUTCOME_UNKNOWN,
        EventType.RECOVERY_OBSERVED,
        EventType.RETRY_SCHEDULED,
        EventType.RECONCILE_OBSERVED,
        EventType.CONNECTION_FAILED,
      ),
      weight: 5,
    },
  ),
  attempt: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 4 })),
  generation: fc.integer({ min: 0, max: 4 }),
  source: fc.constantFrom(...EVIDENCE_SOURCES),
  data: fc.tuple(
    fc.oneof(
      fc.constant({}),
      // Coherent verdicts, so that walks commit and reject often enough.
      fc.constant({ outcome: Outcome.committed, code: null, retry_rule: 'never' }),
      fc.constant({ outcome: Outcome.rejected, code: 'REMOTE_REJECTED', retry_rule: 'after_correction' }),
      fc.constant({ outcome: Outcome.rejected, code: 'RATE_LIMITED', retry_rule: 'rule_r' }),
      fc.constant({ outcome: Outcome.unknown, code: 'REMOTE_OUTCOME_UNKNOWN', retry_rule: 'rule_u' }),
    ),
    fc.record(
    {
      outcome: fc.constantFrom<string>(...OUTCOMES, Outcome.committed, Outcome.rejected, 'bogus'),
      code: fc.constantFrom<string | null>(...CODES, null),
      retry_rule: fc.constantFrom<string>(...RETRIES, ...DEFERRED_RETRIES),
      stage: fc.constantFrom(...STAGES),
      phase: fc.constantFrom(...PHASES),
      connect_try: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 4 })),
      final: fc.boolean(),
      dispatched: fc.boolean(),
      client_request_id: fc.constant('req'),
      credential: fc.constant({ id: 'cred', version: 1, injection: 'http_bearer' }),
      result_digest: fc.constant('sha256:r'),
      response_status: fc.integer({ min: 100, max: 599 }),
    },
    { requiredKeys: [] },
    ),
  ).map(([verdict, rest]) => ({ ...rest, ...verdict })),
});

/** An accepted and validated invocation followed by random steps; n and seq are always in order. */
type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never;

function streamOf(steps: Step[]): StoredEvent[] {
  const s = new EventStream();
  s.add(EventType.ACTION_ACCEPTED, { client_request_id: 'req' });
  s.add(EventType.PREFLIGHT_VALIDATED, { binding: testBinding({ connect_attempts: 2 }), request_fingerprint: 'fp' });
  for (const step of steps) {
    s.add(step.type, step.data as Record<string, unknown>, { attempt: step.attempt, generation: step.generation, source: step.source });
  }
  return s.events;
}

/** Applies events in order, renumbering n so that refusals do not turn into gaps. */
function walk(events: StoredEvent[], visit: (before: InvocationState, after: InvocationState, event: StoredEvent) => void): void {
  let state = initialState(events[0]!.invocation_id);
  for (const raw of events) {
    const event = { ...raw, n: state.journal.events + 1 };
    const snapshot = JSON.stringify(state);
    const result = evolve(state, event);
    if (!result.ok) {
      expect(JSON.stringify(state)).toBe(snapshot);
      continue;
    }
    visit(state, result.state, event);
    state = result.state;
  }
}

describe('evolve properties', () => {
  it('after any DISPATCH_STARTED the outcome is never not_attempted', () => {
    const reached = { dispatched: 0, committed: 0, rejected: 0, unknown: 0 };
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        walk(streamOf(steps), (_before, after) => {
          if (after.dispatches > 0) {
            expect(after.outcome).not.toBe(Outcome.not_attempted);
            reached.dispatched++;
            if (after.outcome !== Outcome.not_attempted) reached[after.outcome]++;
          }
        });
      }),
      RUNS,
    );
    // The generator must reach the states the invariants are about.
    expect(reached.dispatched).toBeGreaterThan(80);
    expect(reached.committed).toBeGreaterThan(3);
    expect(reached.rejected).toBeGreaterThan(8);
    expect(reached.unknown).toBeGreaterThan(50);
  });

  it('committed never changes; an attempt that is rejected or committed never changes', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        walk(streamOf(steps), (before, after) => {
          if (before.outcome === Outcome.committed) expect(after.outcome).toBe(Outcome.committed);
          before.attempts.forEach((row, i) => {
            if (row.outcome === Outcome.rejected || row.outcome === Outcome.committed) {
              expect(after.attempts[i]?.outcome).toBe(row.outcome);
            }
          });
        });
      }),
      RUNS,
    );
  });

  it('a rejected invocation changes only through a new dispatch', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        walk(streamOf(steps), (before, after, event) => {
          if (before.outcome === Outcome.rejected && after.outcome !== Outcome.rejected) {
            expect(event.type).toBe(EventType.DISPATCH_STARTED);
          }
        });
      }),
      RUNS,
    );
  });

  it('the journal counts every applied event and only those', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        walk(streamOf(steps), (before, after, event) => {
          expect(after.journal.events).toBe(before.journal.events + 1);
          expect(after.journal.last_seq).toBe(event.seq);
        });
      }),
      RUNS,
    );
  });

  it('any sequence gap or repeat is an anomaly and leaves the state unchanged', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 20 }),
        stepArb,
        fc.integer({ min: -3, max: 1000 }).filter((d) => d !== 1),
        (steps, extra, delta) => {
          let state = initialState('act_01JD0000000000000000000000');
          walk(streamOf(steps), (_b, after) => {
            state = after;
          });
          const event = { ...streamOf([extra]).at(-1)!, n: state.journal.events + delta };
          const snapshot = JSON.stringify(state);
          const result = evolve(state, event);
          expect(result.ok).toBe(false);
          if (!result.ok && Number.isInteger(event.n) && event.n >= 1) expect(result.anomaly.reason).toBe(AnomalyReason.sequence_gap);
          expect(JSON.stringify(state)).toBe(snapshot);
        },
      ),
      RUNS,
    );
  });

  it('never throws on arbitrary input', () => {
    const events = fc.oneof(
      fc.anything(),
      fc.record({
        type: fc.oneof(fc.constantFrom(...EVENT_TYPES), fc.string()),
        invocation_id: fc.oneof(fc.constant('act_01JD0000000000000000000000'), fc.string()),
        n: fc.oneof(fc.integer({ min: -2, max: 5 }), fc.double(), fc.string()),
        attempt: fc.oneof(fc.integer({ min: -1, max: 5 }), fc.anything()),
        generation: fc.anything(),
        seq: fc.oneof(fc.nat(), fc.anything()),
        at: fc.anything(),
        source: fc.oneof(fc.constantFrom(...EVIDENCE_SOURCES), fc.anything()),
        data: fc.oneof(fc.object(), fc.anything()),
      }),
    );
    fc.assert(
      fc.property(fc.array(events, { maxLength: 15 }), (list) => {
        let state = initialState('act_01JD0000000000000000000000');
        for (const e of list) {
          const r = evolve(state, e as StoredEvent);
          if (r.ok) state = r.state;
        }
      }),
      RUNS,
    );
  });

  it('never throws on random but well-formed streams either', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        expect(() => walk(streamOf(steps), () => undefined)).not.toThrow();
      }),
      RUNS,
    );
  });
});
