import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, EventType, Outcome, Retry, Stage, Status, toRecordView, type StoredEvent } from '@postern/contract';
import {
  freePort,
  startConnectProxy,
  startHostileHttpServer,
  startNatsServer,
  type ConnectProxy,
  type HostileHttpServer,
  type NatsServerHandle,
} from '@postern/testkit';
import { foldHistory } from './invocation-plan.js';
import { CANARY, DispatcherHarness, lastOf, ofType, resolved } from './dispatcher-test-harness.js';

/** The invocation's last word: the fold says resolved (a followed redirect stays pending). */
function settled(h: StoredEvent[]): boolean {
  return resolved(h) && foldHistory(h)?.status === Status.resolved;
}

function viewOf(h: StoredEvent[]) {
  return toRecordView(foldHistory(h)!, Date.now());
}

/** `redirects: same_origin` and the policy's `proxy`, on real sockets and a real nats-server. */
describe('dispatcher: redirects and proxies', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let redirecting: HostileHttpServer;
  let other: HostileHttpServer;
  let proxied: HostileHttpServer;
  let accepting: ConnectProxy;
  let refusing: ConnectProxy;
  let unreachable: number;

  beforeAll(async () => {
    nats = await startNatsServer();
    redirecting = await startHostileHttpServer();
    other = await startHostileHttpServer();
    proxied = await startHostileHttpServer();
    accepting = await startConnectProxy();
    refusing = await startConnectProxy({ refuseWith: 403 });
    unreachable = await freePort();
    const t = '    timeouts_ms: {connect: 1000, response_headers: 1500, body: 1500}\n';
    const yaml = `targets:
  - match: "http://127.0.0.1:${redirecting.port}"
    redirects: same_origin
${t}  - match: "http://127.0.0.1:${proxied.port}"
    proxy: "http://127.0.0.1:${accepting.port}"
${t}  - match: "http://127.0.0.1:${unreachable}"
    proxy: "http://127.0.0.1:${refusing.port}"
${t}  - match: "http://127.0.0.1:*"
${t}dispatch:
  connect_attempts: 2
  budget: 3
  auto_retry: false
  lease_ms: 3000
results:
  retention_s: 3600
`;
    h = await DispatcherHarness.start(nats.url, yaml);
    await h.startDispatcher();
  });
  afterAll(async () => {
    await h?.close();
    for (const s of [redirecting, other, proxied]) await s?.close();
    for (const p of [accepting, refusing]) await p?.close();
    await nats?.stop();
  });

  async function run(url: string, opts: Partial<Parameters<DispatcherHarness['submit']>[0]> = {}): Promise<StoredEvent[]> {
    const id = await h.submit({ url, ...opts });
    return h.waitFor(id, settled);
  }

  it('follows a same-origin 307 as a new attempt: its own lease, DISPATCH_STARTED, method, body and credential', async () => {
    const before = redirecting.requests.length;
    const history = await run(`${redirecting.origin}/redirect/307?to=/status/201`, { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
    expect(ofType(history, EventType.DISPATCH_STARTED).map((e) => e.attempt)).toEqual([1, 2]);
    const leases = ofType(history, EventType.LEASE_ACQUIRED);
    expect(leases.map((e) => e.attempt)).toEqual([1, 2]);
    expect(leases[1]!.generation).toBeGreaterThan(leases[0]!.generation);
    const completes = ofType(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(completes[0]!.data).toMatchObject({ outcome: Outcome.committed, code: null, response_status: 307, redirect: { status: 307, location: '/status/201' } });
    expect(completes[1]!.data).toMatchObject({ outcome: Outcome.committed, code: null, response_status: 201 });
    expect(completes[1]!.data['redirect']).toBeUndefined();
    expect(lastOf(history, EventType.DISPATCH_STARTED).data['follows_redirect']).toMatchObject({ attempt: 1, status: 307, method: 'POST' });
    const seen = redirecting.requests.slice(before);
    expect(seen.map((r) => [r.method, r.target])).toEqual([
      ['POST', '/redirect/307?to=/status/201'],
      ['POST', '/status/201'],
    ]);
    expect(seen[1]!.body.toString()).toBe('{"n":1}');
    expect(seen[1]!.headers['authorization']).toBe(`Bearer ${CANARY}`);
    const view = viewOf(history);
    expect(view).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, error: null });
    expect(view.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, Outcome.committed],
      [2, Outcome.committed],
    ]);
    expect(view.evidence).toMatchObject({ attempt: 2, response_status: 201 });
    expect(JSON.stringify(history)).not.toContain(CANARY);
  });

  it('follows a 303 with a GET and no body', async () => {
    const before = redirecting.requests.length;
    const history = await run(`${redirecting.origin}/redirect/303?to=/echo`, { method: 'POST', body: 'abc', headers: { 'content-type': 'text/plain' } });
    const seen = redirecting.requests.slice(before);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'GET']);
    expect(seen[1]!.body.length).toBe(0);
    expect(seen[1]!.headers['content-type']).toBeUndefined();
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.committed, error: null, status: Status.resolved });
  });

  it('never follows a Location on another origin: one attempt, the other server untouched', async () => {
    const to = encodeURIComponent(`${other.origin}/cross-origin`);
    const history = await run(`${redirecting.origin}/redirect/302?to=${to}`);
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data['redirect']).toBeUndefined();
    expect(other.effects('/cross-origin')).toBe(0);
    expect(other.requests.some((r) => r.headers['authorization'] !== undefined)).toBe(false);
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.committed, error: null, status: Status.resolved });
    expect(viewOf(history).evidence.response_status).toBe(302);
  });

  it('does not follow under redirects: none', async () => {
    const history = await run(`${other.origin}/redirect/307?to=/status/201`);
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(other.effects('/status/201')).toBe(0);
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.committed, status: Status.resolved });
  });

  it('stops following when the budget has no dispatch left: the last 3xx is the last word', async () => {
    // budget 3: two redirects followed, the third 3xx is not.
    const third = '/redirect/302?to=/status/200';
    const second = `/redirect/302?to=${encodeURIComponent(third)}`;
    const first = `/redirect/302?to=${encodeURIComponent(second)}`;
    const before = redirecting.effects('/status/200');
    const history = await run(`${redirecting.origin}${first}`);
    expect(ofType(history, EventType.DISPATCH_STARTED).map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(redirecting.effects('/status/200')).toBe(before);
    const view = viewOf(history);
    expect(view).toMatchObject({ outcome: Outcome.committed, status: Status.resolved, error: null });
    expect(view.evidence.response_status).toBe(302);
  });

  it('a follow-up that times out keeps the invocation committed with the follow-up error', async () => {
    const history = await run(`${redirecting.origin}/redirect/307?to=/hang`, { method: 'GET' });
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: 'remote_execution', outcome: Outcome.committed });
    expect(view.attempts[1]).toMatchObject({ attempt: 2, outcome: Outcome.unknown });
  });

  it('tunnels through the policy proxy and commits', async () => {
    const history = await h.waitFor(await h.submit({ url: `${proxied.origin}/status/200` }), resolved);
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(accepting.tunnels).toContain(`127.0.0.1:${proxied.port}`);
  });

  it('a refused CONNECT is PROXY_TUNNEL_FAILED, not_attempted, backoff, at stage proxy_connect', async () => {
    const history = await h.waitFor(await h.submit({ url: `http://127.0.0.1:${unreachable}/x` }), resolved);
    const failed = ofType(history, EventType.CONNECTION_FAILED);
    expect(failed).toHaveLength(2);
    expect(failed[1]!.data).toMatchObject({ stage: Stage.proxy_connect, code: Code.PROXY_TUNNEL_FAILED, retry_rule: Retry.backoff, final: true });
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.not_attempted);
    expect(view.error).toMatchObject({ phase: 'connection_setup', code: Code.PROXY_TUNNEL_FAILED, retry: Retry.backoff });
  });
});
