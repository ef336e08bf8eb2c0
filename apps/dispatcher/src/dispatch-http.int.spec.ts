import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Code,
  CredentialType,
  EventType,
  Outcome,
  Phase,
  Retry,
  Stage,
  toRecordView,
  type StoredEvent,
} from '@postern/contract';
import { readResultMeta, readResultStream, verifyStoredResult, type HttpResultMeta } from '@postern/journal';
import { freePort, startHostileHttpServer, startNatsServer, type HostileHttpServer, type NatsServerHandle } from '@postern/testkit';
import { foldHistory } from './invocation-plan.js';
import { CANARY, capturingLog, DispatcherHarness, lastOf, ofType, resolved, type CapturedLog } from './dispatcher-test-harness.js';

/** Every textual form of the canary that must never be written anywhere. */
const CANARY_FORMS = [
  CANARY,
  Buffer.from(CANARY).toString('base64'),
  Buffer.from(CANARY).toString('base64').replace(/=+$/, ''),
  Buffer.from(CANARY).toString('hex'),
  encodeURIComponent(CANARY),
];

function expectNoCanary(text: string): void {
  for (const form of CANARY_FORMS) expect(text).not.toContain(form);
}

function viewOf(h: StoredEvent[]) {
  return toRecordView(foldHistory(h)!, Date.now());
}

describe('dispatcher over HTTP (real NATS, real sockets)', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let hostile: HostileHttpServer;
  let log: CapturedLog;
  const all: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    hostile = await startHostileHttpServer();
    h = await DispatcherHarness.start(nats.url);
    log = capturingLog();
    await h.startDispatcher({ log });
  });
  afterAll(async () => {
    await h?.close();
    await hostile?.close();
    await nats?.stop();
  });

  async function run(path: string, opts: Partial<Parameters<DispatcherHarness['submit']>[0]> = {}): Promise<StoredEvent[]> {
    const id = await h.submit({ url: `${hostile.origin}${path}`, ...opts });
    all.push(id);
    return h.waitFor(id, resolved);
  }

  it('commits a 201: events in order, result stored before REMOTE_RESPONSE_COMPLETE with a matching digest', async () => {
    const history = await run('/status/201');
    const types = history.map((e) => e.type);
    expect(types.slice(3)).toEqual([
      EventType.LEASE_ACQUIRED,
      EventType.DISPATCH_STARTED,
      EventType.REQUEST_SENT,
      EventType.REMOTE_RESPONSE_STARTED,
      EventType.REMOTE_RESPONSE_COMPLETE,
    ]);
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({
      outcome: Outcome.committed,
      code: null,
      phase: Phase.remote_execution,
      response_status: 201,
      framing: 'content-length',
      request_headers_sent: true,
      request_complete: true,
      response_headers_received: true,
      response_complete: true,
    });
    expect(done.source).toBe('remote_response');
    const check = await verifyStoredResult(h.res, done.data['result_object'] as string, done.data['response_digest'] as string);
    expect(check.ok).toBe(true);
    const meta = (await readResultMeta(h.res, done.data['result_object'] as string)) as HttpResultMeta;
    expect(meta.status).toBe(201);
    expect(meta.headers['content-type']).toBe('text/plain');
    expect(meta.headers['x-request-id']).toMatch(/^hostile-/);
    const body = await readResultStream(h.res, done.data['result_object'] as string, 'body');
    expect(Buffer.from(body!).toString()).toBe('status 201');
    const view = viewOf(history);
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.evidence).toMatchObject({ dispatch_started: true, response_status: 201, attempt: 1, connect_try: 1, generation: 1 });
    expect(lastOf(history, EventType.REMOTE_RESPONSE_STARTED).data).toMatchObject({ response_status: 201, hop: 'origin' });
  });

  it('injects a bearer secret that the remote receives and that no event carries', async () => {
    const before = hostile.requests.length;
    const history = await run('/status/200');
    const received = hostile.requests.slice(before).find((r) => r.pathname === '/status/200');
    expect(received?.headers['authorization']).toBe(`Bearer ${CANARY}`);
    expectNoCanary(JSON.stringify(history));
  });

  it('redacts the secret from a stored body and headers that echo it', async () => {
    const history = await run('/echo', { method: 'POST', body: '{"amount":5}', headers: { 'content-type': 'application/json' } });
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data['outcome']).toBe(Outcome.committed);
    const body = Buffer.from((await readResultStream(h.res, done.data['result_object'] as string, 'body'))!).toString();
    const echoed = JSON.parse(body) as { method: string; body: string; headers: Record<string, string> };
    expect(echoed.method).toBe('POST');
    expect(echoed.body).toBe('{"amount":5}');
    expect(echoed.headers['authorization']).toBe('Bearer [REDACTED]');
    expectNoCanary(body);
    expect((await verifyStoredResult(h.res, done.data['result_object'] as string, done.data['response_digest'] as string)).ok).toBe(true);
  });

  it.each([
    [CredentialType.http_header, { header_name: 'X-Api-Key' }, (r: { headers: Record<string, string> }) => r.headers['x-api-key']],
    [CredentialType.http_query, { param: 'key' }, (r: { query: URLSearchParams }) => r.query.get('key')],
  ] as const)('injects a %s credential where its metadata says', async (type, extra, read) => {
    h.release = { credentialType: type, ...extra };
    try {
      const before = hostile.requests.length;
      const history = await run('/status/200', { credentialType: type });
      expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data['outcome']).toBe(Outcome.committed);
      const received = hostile.requests.slice(before).find((r) => r.pathname === '/status/200')!;
      expect((read as (r: unknown) => unknown)(received)).toBe(CANARY);
      expect(received.headers['authorization']).toBeUndefined();
      expectNoCanary(JSON.stringify(history));
    } finally {
      h.release = {};
    }
  });

  it('injects Basic with the credential user', async () => {
    h.release = { credentialType: CredentialType.http_basic, user: 'bob' };
    try {
      const before = hostile.requests.length;
      await run('/status/200', { credentialType: CredentialType.http_basic });
      const received = hostile.requests.slice(before).find((r) => r.pathname === '/status/200')!;
      expect(received.headers['authorization']).toBe(`Basic ${Buffer.from(`bob:${CANARY}`).toString('base64')}`);
    } finally {
      h.release = {};
    }
  });

  it('records each refused connection try, then resolves not_attempted with CONNECT_REFUSED', async () => {
    const port = await freePort();
    const id = await h.submit({ url: `http://127.0.0.1:${port}/x` });
    const history = await h.waitFor(id, resolved);
    const failures = ofType(history, EventType.CONNECTION_FAILED);
    expect(failures.map((e) => e.data['connect_try'])).toEqual([1, 2, 3]);
    expect(failures.map((e) => e.data['final'])).toEqual([false, false, true]);
    expect(failures[0]!.data).toMatchObject({ stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff });
    expect(typeof failures[0]!.data['diagnostic']).toBe('string');
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    const view = viewOf(history);
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.not_attempted });
    expect(view.error).toMatchObject({ code: Code.CONNECT_REFUSED, phase: Phase.connection_setup, retry: Retry.backoff });
    expect(view.attempts).toHaveLength(3);
    expect(h.releases.some((r) => r.invocation_id === id)).toBe(true);
  });

  it('reports a connection closed after the request as unknown, never not_attempted, with one effect', async () => {
    const effects = hostile.effects('/close-after-request');
    const history = await run('/close-after-request');
    const u = lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN);
    expect(u.data).toMatchObject({
      outcome: Outcome.unknown,
      code: Code.REMOTE_OUTCOME_UNKNOWN,
      retry_rule: 'rule_u',
      request_complete: true,
      response_headers_received: false,
      response_complete: false,
    });
    expect(typeof u.data['diagnostic']).toBe('string');
    expect(hostile.effects('/close-after-request')).toBe(effects + 1);
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.reconcile });
  });

  it('does not count interim 1xx responses: 100 then close is an unknown outcome', async () => {
    const history = await run('/interim-then-close');
    expect(lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN).data).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN });
  });

  it.each([
    ['/close-mid-headers', Code.REMOTE_RESULT_INCOMPLETE],
    ['/close-mid-body', Code.REMOTE_RESULT_INCOMPLETE],
    ['/reset-mid-body', Code.REMOTE_RESULT_INCOMPLETE],
    ['/chunked-broken', Code.REMOTE_RESULT_INCOMPLETE],
    ['/chunked-unterminated', Code.REMOTE_RESULT_INCOMPLETE],
    ['/close-delimited-reset', Code.REMOTE_RESULT_INCOMPLETE],
  ])('reports %s as unknown %s and stores nothing', async (path, code) => {
    const history = await run(path);
    const u = lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN);
    expect(u.data).toMatchObject({ outcome: Outcome.unknown, code, response_complete: false });
    expect(ofType(history, EventType.REMOTE_RESPONSE_COMPLETE)).toHaveLength(0);
    expect(await readResultMeta(h.res, `${history[0]!.invocation_id}.1`)).toBeNull();
  });

  it('gives up on a remote that never answers at the broker timeout, outcome unknown', async () => {
    const history = await run('/hang');
    const u = lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN);
    expect(u.data).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, broker_timeout: 'response_headers', stage: Stage.response_headers });
  });

  it('gives up in the middle of a body at the body timeout as REMOTE_RESULT_INCOMPLETE', async () => {
    const history = await run('/hang-body');
    expect(lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN).data).toMatchObject({ code: Code.REMOTE_RESULT_INCOMPLETE, broker_timeout: 'body', response_status: 200 });
  });

  it('commits a complete 500 as REMOTE_ERROR_RESPONSE and stores it', async () => {
    const history = await run('/status/500');
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ outcome: Outcome.committed, code: Code.REMOTE_ERROR_RESPONSE, response_status: 500 });
    expect(viewOf(history).error).toMatchObject({ code: Code.REMOTE_ERROR_RESPONSE, retry: Retry.reconcile });
  });

  it('rejects a complete 404 with after_correction', async () => {
    const history = await run('/status/404');
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.rejected, code: Code.REMOTE_REJECTED, retry_rule: Retry.after_correction });
    expect(viewOf(history).outcome).toBe(Outcome.rejected);
  });

  it('rejects a 429 as RATE_LIMITED with the Retry-After in milliseconds', async () => {
    const history = await run('/status/429?retry-after=7');
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.rejected, code: Code.RATE_LIMITED, retry_after_ms: 7000 });
    expect(viewOf(history).error).toMatchObject({ code: Code.RATE_LIMITED, retry_after_ms: 7000 });
  });

  it('keeps a 502 from a proxy unknown, naming the hop and its Proxy-Status', async () => {
    const history = await run('/proxy-status/502');
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, hop: 'proxy:proxy', response_status: 502 });
    expect((done.data['proxy_status'] as { name: string; error?: string }[])[0]).toMatchObject({ name: 'proxy', error: 'http_response_incomplete' });
    expect(viewOf(history).evidence).toMatchObject({ hop: 'proxy:proxy' });
  });

  it('keeps a bare 504 unknown with the origin as hop', async () => {
    const history = await run('/status/504');
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, hop: 'origin' });
  });

  it('commits a 202, a 204 and a redirect that is not followed', async () => {
    const accepted = await run('/status/202');
    expect(lastOf(accepted, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.committed, code: null });
    const empty = await run('/status/204');
    expect(lastOf(empty, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.committed, response_status: 204 });
    const before = hostile.effects('/status/200');
    const moved = await run('/redirect/302?to=/status/200');
    expect(lastOf(moved, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.committed, response_status: 302 });
    expect(hostile.effects('/status/200')).toBe(before);
  });

  it('commits chunked and close-delimited bodies once their framing completed', async () => {
    const chunked = await run('/chunked');
    const c = lastOf(chunked, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(c.data).toMatchObject({ outcome: Outcome.committed, framing: 'chunked' });
    expect(Buffer.from((await readResultStream(h.res, c.data['result_object'] as string, 'body'))!).toString()).toBe('hello, world');
    const closed = await run('/close-delimited');
    expect(lastOf(closed, EventType.REMOTE_RESPONSE_COMPLETE).data).toMatchObject({ outcome: Outcome.committed, framing: 'close' });
  });

  it('reads an over-limit body through, stores status and headers only, RESPONSE_TRUNCATED', async () => {
    const history = await run('/big/10000');
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ outcome: Outcome.committed, code: Code.RESPONSE_TRUNCATED, complete: false, retry_rule: Retry.never });
    const meta = (await readResultMeta(h.res, done.data['result_object'] as string)) as HttpResultMeta;
    expect(meta).toMatchObject({ status: 200, complete: false, streams: {} });
    expect(await readResultStream(h.res, done.data['result_object'] as string, 'body')).toBeNull();
  });

  it('reuses a kept-alive connection and says so in DISPATCH_STARTED', async () => {
    await run('/status/200');
    const second = await run('/status/200');
    const dispatch = lastOf(second, EventType.DISPATCH_STARTED);
    expect(dispatch.data['connection']).toMatchObject({ reused: true });
  });

  it('never reports not_attempted for a request handed to a connection the server closed while idle', async () => {
    await run('/keepalive-then-close?delay-ms=30');
    await new Promise((r) => setTimeout(r, 150));
    const history = await run('/status/200');
    const view = viewOf(history);
    expect(view.outcome).not.toBe(Outcome.not_attempted);
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
    // The dead idle socket was noticed before dispatch: a fresh connection carried it.
    expect(lastOf(history, EventType.DISPATCH_STARTED).data['connection']).toMatchObject({ reused: false });
    expect(view.outcome).toBe(Outcome.committed);
  });

  it('racing a server that closes kept-alive sockets: every dispatched request is committed or unknown, never not_attempted', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 5; round++) {
      await run(`/keepalive-then-close?delay-ms=${round * 3}`);
      const history = await run('/status/200');
      const view = viewOf(history);
      outcomes.push(view.outcome);
      expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
      expect([Outcome.committed, Outcome.unknown]).toContain(view.outcome);
      if (view.outcome === Outcome.unknown) {
        expect(view.error?.code).toBe(Code.REMOTE_OUTCOME_UNKNOWN);
        expect(view.evidence.connection?.reused).toBe(true);
      }
    }
    expect(outcomes).toHaveLength(5);
  });

  it('answers the caller deadline after dispatch with CALLER_CANCELLED at once and still records the late verdict', async () => {
    const history = await h.waitFor(
      await h.submit({ url: `${hostile.origin}/hang`, timeoutMs: 400 }),
      (hh) => hh.some((e) => e.type === EventType.REMOTE_OUTCOME_UNKNOWN),
    );
    const cancel = lastOf(history, EventType.CALLER_CANCELLED);
    expect(cancel.data).toMatchObject({ phase: Phase.remote_execution, dispatched: true });
    expect(cancel.n).toBeLessThan(lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN).n);
    expect(ofType(history, EventType.CALLER_CANCELLED)).toHaveLength(1);
    const view = viewOf(history);
    expect(view).toMatchObject({ cancelled: true, outcome: Outcome.unknown });
  });

  it('refuses a credential the vault cannot release now, before any byte is sent', async () => {
    h.release = { refuse: Code.VAULT_LOCKED };
    try {
      const effects = hostile.effects('/status/200');
      const history = await run('/status/200');
      const rejected = lastOf(history, EventType.CREDENTIAL_REJECTED);
      expect(rejected.data).toMatchObject({ code: Code.VAULT_LOCKED, action_required: 'vault_unlock' });
      expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
      expect(hostile.effects('/status/200')).toBe(effects);
      expect(viewOf(history)).toMatchObject({ outcome: Outcome.not_attempted, error: { code: Code.VAULT_LOCKED, phase: Phase.credential_injection } });
    } finally {
      h.release = {};
    }
  });

  it('waits for an absent credential service without writing an event per try, then dispatches once', async () => {
    h.release = { silent: true };
    const id = await h.submit({ url: `${hostile.origin}/status/200` });
    all.push(id);
    try {
      await new Promise((r) => setTimeout(r, 2_600));
      expect((await h.events(id)).map((e) => e.type)).toEqual([
        EventType.ACTION_ACCEPTED,
        EventType.PREFLIGHT_VALIDATED,
        EventType.CREDENTIAL_AUTHORIZED,
      ]);
    } finally {
      h.release = {};
    }
    const history = await h.waitFor(id, resolved, 10_000);
    expect(ofType(history, EventType.LEASE_ACQUIRED)).toHaveLength(1);
    expect(lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE).data['outcome']).toBe(Outcome.committed);
  });

  it('refuses a binding whose fingerprint no longer matches with BINDING_CHANGED', async () => {
    const effects = hostile.effects('/status/200');
    const history = await run('/status/200', { fingerprintOverride: 'sha256:0000' });
    expect(lastOf(history, EventType.PREFLIGHT_REJECTED).data).toMatchObject({ code: Code.BINDING_CHANGED, field: 'binding' });
    expect(hostile.effects('/status/200')).toBe(effects);
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.not_attempted, error: { code: Code.BINDING_CHANGED, phase: Phase.validation } });
  });

  it('never writes the canary into any event or log line of this file', async () => {
    expect(all.length).toBeGreaterThan(10);
    for (const id of all) expectNoCanary(JSON.stringify(await h.events(id)));
    expectNoCanary(log.lines.join('\n'));
    expect(log.lines.some((l) => l.includes('attempt.resolved'))).toBe(true);
  });
});
