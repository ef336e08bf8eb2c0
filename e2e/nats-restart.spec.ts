import { EventType, Outcome } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, HttpFixture } from './support/http-fixture.js';
import { everythingStored, leaks } from './support/leak-scan.js';

// nats-server goes away while an attempt is in flight: the request has left
// and the response headers are journaled; the body arrives while there is no
// NATS, and NATS stays away longer than the lease could be renewed. Every
// service reconnects; the dispatcher, which holds the complete response,
// stores it and journals it once NATS is back (the journal's expected
// sequence, not the lease clock, decides whether that is still its place),
// and the action ends as it would have without the outage: committed,
// stored, fetchable, one effect, and no event twice.

const PATH = '/slow-body';
const DOWN_MS = 4_000;

let f: HttpFixture;

beforeAll(async () => {
  f = await HttpFixture.start({ prefix: 'e2enatsrestart', responseTimeoutMs: 15_000, leaseMs: 2_000 });
}, 90_000);

afterAll(async () => {
  await f?.stop();
});

describe('nats-server restarts while a request is in flight', () => {
  it('the body that arrived meanwhile is stored and journaled once NATS is back: committed, fetchable, one effect', async () => {
    const submitted = await f.stack.request('actions.submit', {
      client_request_id: `natsrestart-${process.pid}`,
      caller: 'e2e',
      action: 'http.request',
      credential: 'local-api',
      http: { method: 'POST', url: `${f.plain.origin}${PATH}?delay-ms=1000`, body: { json: { charge: 7 } } },
    });
    const id: string = submitted.invocation_id;
    await f.stack.waitForEvent(id, EventType.REMOTE_RESPONSE_STARTED);

    // The body comes 1 s after the headers: NATS is down then, and for longer than the 2 s lease.
    await f.stack.nats.restart({ downForMs: DOWN_MS });

    const view = await f.stack.untilResolved(id);
    expect(view, JSON.stringify(view)).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(f.plain.effects(PATH)).toBe(1);

    const history = await f.stack.events(id);
    const count = (type: EventType) => history.filter((e) => e.type === type).length;
    expect(count(EventType.DISPATCH_STARTED)).toBe(1);
    expect(count(EventType.REMOTE_RESPONSE_COMPLETE)).toBe(1);
    expect(count(EventType.RESULT_COMMITTED)).toBe(1);
    expect(history.map((e) => e.n)).toEqual(history.map((_, i) => i + 1));

    const result = await f.stack.requestUntilAnswered('results.fetch', { invocation_id: id });
    expect(Buffer.from(result.http.body.base64, 'base64').toString()).toBe('late');
    const projected = await f.stack.projected(id, (v) => v.outcome === Outcome.committed);
    expect(projected.journal.events).toBe(history.length);
  }, 90_000);

  it('every service takes new work after the restart: a new action runs through to committed', async () => {
    const submitted = await f.stack.requestUntilAnswered('actions.submit', {
      client_request_id: `natsrestart-after-${process.pid}`,
      caller: 'e2e',
      action: 'http.request',
      credential: 'local-api',
      http: { method: 'GET', url: `${f.plain.origin}/status/201` },
    });
    const view = await f.awaitResolved(submitted.invocation_id);
    expect(view, JSON.stringify(view)).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    await f.stack.projected(submitted.invocation_id, (v) => v.outcome === Outcome.committed);
  }, 60_000);
});

describe('the secret', () => {
  it('appears nowhere after an attempt waited out an outage', async () => {
    const places = await everythingStored(f.stack);
    expect(places.length).toBeGreaterThan(20);
    expect(leaks(places, [CANARY, 'e2e passphrase, test only'])).toEqual([]);
  });
});
