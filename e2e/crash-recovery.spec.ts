import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpFixture } from './support/http-fixture.js';

// The dispatcher dies with SIGKILL (its compiled-in fault switch) between two
// durable transitions; the launcher restarts it; the restarted one must say
// `unknown`, recovered, and never send the request a second time.

let f: HttpFixture | null = null;

afterEach(async () => {
  await f?.stop();
  f = null;
});

async function crashAndRecover(point: string, path: string) {
  f = await HttpFixture.start({ prefix: `crash${point.length}`, env: { POSTERN_FAULT: point }, leaseMs: 2000 });
  const submitted = await f.stack.request('actions.submit', {
    client_request_id: `crash-${point}-${process.pid}`,
    action: 'http.request',
    credential: 'local-api',
    http: { method: 'POST', url: `${f.plain.origin}${path}`, body: { json: { charge: 1 } } },
  });
  const view = await f.stack.untilResolved(submitted.invocation_id);
  const events = await f.stack.events(submitted.invocation_id);
  return { view, types: events.map((e) => e.type), f };
}

describe('SIGKILL of the dispatcher after DISPATCH_STARTED', () => {
  it('before a byte left: unknown, recovered, and the server saw nothing', async () => {
    const { view, types, f } = await crashAndRecover('after_dispatch_started', '/status/201');
    expect(view.status).toBe('resolved');
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, retry: Retry.reconcile });
    expect(view.evidence.recovered).toBe(true);
    expect(types).toContain(EventType.DISPATCH_STARTED);
    expect(types.at(-1)).toBe(EventType.RECOVERY_OBSERVED);
    expect(f.plain.effects('/status/201')).toBe(0);
  }, 90_000);

  it('after the request was sent: unknown, recovered, and exactly one effect', async () => {
    const { view, types, f } = await crashAndRecover('after_request_sent', '/slow-headers');
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.evidence.recovered).toBe(true);
    expect(types.filter((t) => t === EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(types).toContain(EventType.RECOVERY_OBSERVED);
    // Past the lease and the recovery: still one effect, nothing re-sent.
    await new Promise((r) => setTimeout(r, 2500));
    expect(f.plain.effects('/slow-headers')).toBe(1);
  }, 90_000);
});
