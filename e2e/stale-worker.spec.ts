import { EventType, Outcome } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpFixture } from './support/http-fixture.js';

// Two dispatchers. The first freezes (SIGSTOP) right after LEASE_ACQUIRED, as
// a worker does in a long pause (a stalled VM, a swapped-out process). Its
// lease runs out; the second dispatcher gets the invocation once the first's
// delivery times out, takes the lease with the next generation and dispatches.
// When the first wakes up (SIGCONT) it must find that the lease is no longer
// its own and stop before a byte leaves: one effect at the server, one
// DISPATCH_STARTED in the journal, nothing written with the stale generation.

const LEASE_MS = 2_000;
const PATH = '/status/201';

let f: HttpFixture;
let frozenPid: number | null = null;

beforeAll(async () => {
  f = await HttpFixture.start({
    prefix: 'e2estale',
    services: ['credential', 'intake', 'delivery', 'projector'],
    leaseMs: LEASE_MS,
  });
}, 90_000);

afterAll(async () => {
  // A worker left frozen by a failed assertion must be able to die with the stack.
  if (frozenPid !== null) {
    try {
      process.kill(frozenPid, 'SIGCONT');
    } catch {
      // Already gone.
    }
  }
  await f?.stop();
});

function logEvent(event: string): Record<string, unknown> | null {
  for (const line of f.stack.lines) {
    if (!line.includes(`"event":"${event}"`)) continue;
    return JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>;
  }
  return null;
}

async function until<T>(what: string, probe: () => Promise<T | null> | T | null, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < 1_000 && Date.now() < deadline; i++) {
    const found = await probe();
    if (found !== null) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms:\n${f.stack.lines.slice(-15).join('\n')}`);
}

describe('a dispatcher that wakes up after its lease passed to another', () => {
  it('is stopped by its generation check before it sends: one effect, one DISPATCH_STARTED', async () => {
    await f.stack.startService('dispatcher', { POSTERN_FAULT: 'after_lease_acquired:stop' });
    const submitted = await f.stack.request('actions.submit', {
      client_request_id: `stale-${process.pid}`,
      caller: 'e2e',
      action: 'http.request',
      credential: 'local-api',
      http: { method: 'POST', url: `${f.plain.origin}${PATH}`, body: { json: { charge: 1 } } },
    });
    const id: string = submitted.invocation_id;
    const stopping = await until('the first dispatcher freezing', () => logEvent('fault.stopping'), 15_000);
    frozenPid = stopping['pid'] as number;
    const firstLease = await f.stack.waitForEvent(id, EventType.LEASE_ACQUIRED);
    expect(firstLease.generation).toBe(1);

    // The second dispatcher: it gets the invocation when the frozen one's delivery times out.
    await f.stack.startService('dispatcher');
    const view = await f.awaitResolved(id, 60_000);
    expect(view, JSON.stringify(view)).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.evidence.generation).toBeGreaterThan(1);
    expect(f.plain.effects(PATH)).toBe(1);

    process.kill(frozenPid, 'SIGCONT');
    const stopped = await until(
      'the woken dispatcher stopping',
      () => {
        const line = f.stack.lines.find((l) => l.includes('"event":"attempt.stopped"') && l.includes(id));
        return line === undefined ? null : (JSON.parse(line.slice(line.indexOf('{'))) as Record<string, unknown>);
      },
      15_000,
    );
    frozenPid = null;
    expect(stopped['reason']).toBe('lease_lost');

    const history = await f.stack.events(id);
    expect(history.filter((e) => e.type === EventType.DISPATCH_STARTED)).toHaveLength(1);
    const lastOfFirst = Math.max(...history.filter((e) => e.generation === 1).map((e) => e.seq));
    const secondLease = history.find((e) => e.type === EventType.LEASE_ACQUIRED && e.generation > 1)!;
    expect(lastOfFirst).toBeLessThan(secondLease.seq);
    expect(f.plain.effects(PATH)).toBe(1);
    const record = await f.stack.request('actions.get', { invocation_id: id });
    expect(record).toMatchObject({ outcome: Outcome.committed, error: null });
    const anomalies = await f.stack.api('/v1/anomalies');
    expect(JSON.stringify(anomalies.body)).not.toContain(id);
  }, 120_000);
});
