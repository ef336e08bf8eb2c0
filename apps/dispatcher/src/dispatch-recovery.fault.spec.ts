import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, EventType, Outcome, Retry, toRecordView, type StoredEvent } from '@postern/contract';
import { startHostileHttpServer, startNatsServer, type HostileHttpServer, type NatsServerHandle } from '@postern/testkit';
import { DispatcherHarness, lastOf, ofType, policyYaml } from './dispatcher-test-harness.js';
import { FaultPoint, type FaultSwitch } from './fault-point.js';
import { foldHistory } from './invocation-plan.js';

/**
 * A worker that stops dead at a fault point: no further append, no lease
 * renewal, its NATS connection then cut, as a killed process would leave
 * things. Another dispatcher instance must find the attempt and close it as
 * unknown without sending anything again.
 */
function crashAt(point: FaultPoint): FaultSwitch & { fired: () => boolean } {
  let fired = false;
  return {
    armed: (p) => p === point && !fired,
    kills: true,
    hit: async () => {
      fired = true;
      await new Promise<never>(() => undefined);
    },
    fired: () => fired,
  };
}

describe('dispatcher crash and recovery', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let hostile: HostileHttpServer;

  beforeAll(async () => {
    nats = await startNatsServer();
    hostile = await startHostileHttpServer();
    h = await DispatcherHarness.start(nats.url, policyYaml({ leaseMs: 1000 }));
  });
  afterAll(async () => {
    await hostile?.close();
    await nats?.stop();
  });

  async function crashThenRecover(point: FaultPoint, path: string, seen: (hh: StoredEvent[]) => boolean) {
    const fault = crashAt(point);
    const crashed = await h.startDispatcher({ fault, recoveryIntervalMs: 60_000 });
    const id = await h.submit({ url: `${hostile.origin}${path}` });
    const atCrash = await h.waitFor(id, (hh) => fault.fired() && seen(hh));
    // Give a live worker time to do what it would do next; a dead one does nothing.
    await new Promise((r) => setTimeout(r, 300));
    const afterCrash = await h.events(id);
    await crashed.service.deps.res.nc.close();
    const effectsAtCrash = hostile.effects(path.split('?')[0]);
    const rescuer = await h.startDispatcher({ recoveryIntervalMs: 200 });
    const history = await h.waitFor(id, (hh) => hh.some((e) => e.type === EventType.RECOVERY_OBSERVED), 10_000);
    await rescuer.app.close();
    return { id, atCrash, afterCrash, history, effectsAtCrash, crashedId: crashed.instanceId, rescuerId: rescuer.instanceId };
  }

  it('sends nothing when the worker dies right after LEASE_ACQUIRED, and the next worker dispatches once', async () => {
    const fault = crashAt(FaultPoint.after_lease_acquired);
    const crashed = await h.startDispatcher({ fault, ackWaitMs: 2_000, recoveryIntervalMs: 60_000 });
    const id = await h.submit({ url: `${hostile.origin}/status/200?case=lease` });
    const effects = hostile.effects('/status/200');
    await h.waitFor(id, (hh) => fault.fired() && hh.some((e) => e.type === EventType.LEASE_ACQUIRED));
    await new Promise((r) => setTimeout(r, 300));
    const history = await h.events(id);
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    expect(hostile.effects('/status/200')).toBe(effects);
    // The secret went only to the dead worker's one-time key.
    expect(h.releases.filter((r) => r.invocation_id === id)).toHaveLength(1);
    await crashed.service.deps.res.nc.close();

    // The unacknowledged event comes back to another worker, which waits out
    // the dead worker's lease and then dispatches, once.
    const next = await h.startDispatcher({ ackWaitMs: 2_000, recoveryIntervalMs: 60_000 });
    const done = await h.waitFor(id, (hh) => hh.some((e) => e.type === EventType.REMOTE_RESPONSE_COMPLETE), 15_000);
    await next.app.close();
    expect(ofType(done, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(lastOf(done, EventType.DISPATCH_STARTED).generation).toBe(2);
    expect(ofType(done, EventType.LEASE_ACQUIRED).map((e) => e.data['holder'])).toEqual([crashed.instanceId, next.instanceId]);
    expect(hostile.effects('/status/200')).toBe(effects + 1);
  });

  it('recovers an attempt that died after DISPATCH_STARTED as unknown, with nothing sent and nothing re-sent', async () => {
    const r = await crashThenRecover(FaultPoint.after_dispatch_started, '/status/201', (hh) => hh.some((e) => e.type === EventType.DISPATCH_STARTED));
    expect(r.effectsAtCrash).toBe(hostile.effects('/status/201'));
    expect(ofType(r.afterCrash, EventType.REQUEST_SENT)).toHaveLength(0);
    expect(ofType(r.history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    const rec = lastOf(r.history, EventType.RECOVERY_OBSERVED);
    expect(rec.attempt).toBe(1);
    expect(rec.generation).toBe(2);
    expect(rec.data).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', recovered: true });
    const view = toRecordView(foldHistory(r.history)!, Date.now());
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.unknown });
    expect(view.evidence.recovered).toBe(true);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.reconcile });
  });

  it('recovers an attempt that died after REQUEST_SENT: one effect at the remote, never a second', async () => {
    const before = hostile.effects('/hang');
    const r = await crashThenRecover(FaultPoint.after_request_sent, '/hang', (hh) => hh.some((e) => e.type === EventType.REQUEST_SENT));
    expect(hostile.effects('/hang')).toBe(before + 1);
    expect(ofType(r.history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(ofType(r.history, EventType.REMOTE_OUTCOME_UNKNOWN)).toHaveLength(0);
    expect(lastOf(r.history, EventType.RECOVERY_OBSERVED).data).toMatchObject({ recovered: true, outcome: Outcome.unknown });
    await new Promise((res) => setTimeout(res, 300));
    expect(hostile.effects('/hang')).toBe(before + 1);
  });

  it('recovers an attempt whose response arrived but whose verdict was never written', async () => {
    const before = hostile.effects('/status/202');
    const r = await crashThenRecover(FaultPoint.before_response_complete, '/status/202', (hh) => hh.some((e) => e.type === EventType.REMOTE_RESPONSE_STARTED));
    expect(hostile.effects('/status/202')).toBe(before + 1);
    expect(ofType(r.history, EventType.REMOTE_RESPONSE_COMPLETE)).toHaveLength(0);
    expect(lastOf(r.history, EventType.RECOVERY_OBSERVED).data).toMatchObject({ recovered: true });
  });
});
