import { Code, EventType, Outcome, Phase, Retry, Stage } from '@postern/contract';
import { Journal } from '@postern/journal';
import { freePort, startBlackholeListener } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, HttpFixture } from './support/http-fixture.js';
import { everythingStored, leaks } from './support/leak-scan.js';

// Every HTTP row of the classification table (CONTRACT.md section 6) through
// the whole stack: five services as processes, a real nats-server, hostile
// HTTP servers and a DNS server on 127.0.0.1.

let f: HttpFixture;
let n = 0;

beforeAll(async () => {
  f = await HttpFixture.start();
}, 90_000);

afterAll(async () => {
  await f?.stop();
});

function command(url: string, options: { method?: string; key?: string; timeout_ms?: number; credential?: string } = {}) {
  return {
    client_request_id: `http-${process.pid}-${++n}`,
    caller: 'e2e',
    action: 'http.request',
    credential: options.credential ?? 'local-api',
    http: {
      method: options.method ?? 'POST',
      url,
      ...(options.method === 'GET' || options.method === 'HEAD' ? {} : { body: { json: { amount: 500, n } } }),
    },
    ...(options.key ? { idempotency_key: options.key } : {}),
    ...(options.timeout_ms ? { timeout_ms: options.timeout_ms } : {}),
  };
}

const plain = (path: string) => `${f.plain.origin}${path}`;
const contract = (path: string) => `${f.contract.origin}${path}`;

function expectError(view: any, phase: Phase, outcome: Outcome, code: Code, retry: Retry) {
  expect(view.status, JSON.stringify(view)).toBe('resolved');
  expect(view.outcome).toBe(outcome);
  expect(view.error, JSON.stringify(view)).toMatchObject({ phase, outcome, code, retry });
}

describe('connection setup: provably never sent', () => {
  it('NXDOMAIN is DNS_FAILED, after_correction, on the first try', async () => {
    const view = await f.run(command('http://nowhere.postern.test:8080/x', { method: 'GET' }));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.DNS_FAILED, Retry.after_correction);
    expect(view.evidence.dispatch_started).toBe(false);
    expect(view.attempts[0]).toMatchObject({ stage: 'dns', outcome: Outcome.not_attempted, code: Code.DNS_FAILED });
  });

  it('a temporary DNS failure is DNS_FAILED, backoff, tried connect_attempts times', async () => {
    const view = await f.run(command('http://servfail.postern.test:8080/x', { method: 'GET' }));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.DNS_FAILED, Retry.backoff);
    expect(view.attempts.map((a: any) => a.connect_try)).toEqual([1, 2]);
  });

  it('a refused TCP connection is CONNECT_REFUSED, backoff, one row per try', async () => {
    const closed = await freePort();
    const view = await f.run(command(`http://127.0.0.1:${closed}/x`));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.CONNECT_REFUSED, Retry.backoff);
    expect(view.attempts).toHaveLength(2);
    expect(view.attempts.every((a: any) => a.stage === 'tcp_connect' && a.outcome === Outcome.not_attempted)).toBe(true);
    expect(view.evidence.dispatch_started).toBe(false);
  });

  it('an address no route leads to is NETWORK_UNREACHABLE, backoff', async () => {
    // The kernel refuses a TCP connect to the broadcast address before any packet is sent.
    const view = await f.run(command('http://255.255.255.255:8080/x'));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.NETWORK_UNREACHABLE, Retry.backoff);
    expect(view.attempts.every((a: any) => a.stage === 'tcp_connect')).toBe(true);
  });

  it('a TCP connect that never completes is CONNECT_TIMEOUT, backoff', async () => {
    const hole = await startBlackholeListener();
    try {
      const view = await f.run(command(`http://127.0.0.1:${hole.port}/x`));
      expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.CONNECT_TIMEOUT, Retry.backoff);
      expect(view.attempts.map((a: any) => a.stage)).toEqual(['tcp_connect', 'tcp_connect']);
    } finally {
      await hole.close();
    }
  });

  it('a certificate for another name is TLS_CERT_REJECTED and nothing reaches the server', async () => {
    const view = await f.run(command(`https://localhost:${f.wrongHost.port}/status/201`));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.TLS_CERT_REJECTED, Retry.after_correction);
    expect(f.wrongHost.effects()).toBe(0);
  });

  it('an untrusted self-signed certificate is TLS_CERT_REJECTED', async () => {
    const view = await f.run(command(`https://localhost:${f.selfSigned.port}/status/201`));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.TLS_CERT_REJECTED, Retry.after_correction);
    expect(f.selfSigned.effects()).toBe(0);
  });

  it('a TLS handshake with a server that does not speak TLS is TLS_HANDSHAKE_FAILED, backoff', async () => {
    const before = f.plain.effects();
    const view = await f.run(command(`https://localhost:${f.plain.port}/status/201`));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.TLS_HANDSHAKE_FAILED, Retry.backoff);
    expect(f.plain.effects()).toBe(before);
  });

  it('a name from the injected resolver and a trusted TLS peer both commit', async () => {
    const viaDns = await f.run(command(`http://api.postern.test:${f.plain.port}/status/201`));
    expect(viaDns).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(f.dns.queries('api.postern.test')).toBeGreaterThan(0);
    const viaTls = await f.run(command(`https://localhost:${f.tls.port}/status/201`));
    expect(viaTls).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(viaTls.evidence.connection.tls_peer_sha256).toMatch(/^[0-9a-f]{64}$|^[0-9A-F:]{95}$/);
  });
});

describe('remote execution: complete responses', () => {
  it('a complete 201 is committed with no error, its result stored and fetchable', async () => {
    const view = await f.run(command(plain('/status/201')));
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.evidence).toMatchObject({
      dispatch_started: true,
      request_complete: true,
      response_headers_received: true,
      response_complete: true,
      response_status: 201,
      framing: 'content-length',
    });
    const result = await f.stack.request('results.fetch', { invocation_id: view.invocation_id });
    expect(result).toMatchObject({ outcome: Outcome.committed, complete: true, http: { status: 201 } });
    expect(Buffer.from(result.http.body.base64, 'base64').toString()).toBe('status 201');
    expect(result.result_digest).toBe(view.result?.result_digest ?? result.result_digest);
  });

  it('a clean close ends a close-delimited body: committed', async () => {
    const view = await f.run(command(plain('/close-delimited')));
    expect(view).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(view.evidence.framing).toBe('close');
  });

  it('a chunked body with its last chunk is committed', async () => {
    const view = await f.run(command(plain('/chunked')));
    expect(view).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(view.evidence.framing).toBe('chunked');
  });

  it('a 3xx is committed and not followed', async () => {
    const before = f.plain.effects('/status/200');
    const view = await f.run(command(plain('/redirect/302?to=/status/200')));
    expect(view).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(view.evidence.response_status).toBe(302);
    expect(f.plain.effects('/status/200')).toBe(before);
  });

  it('a 202 is committed with the async operation it names', async () => {
    const view = await f.run(command(plain('/redirect/202?to=/jobs/77')));
    expect(view).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(view.evidence.async_operation).toMatchObject({ status_url: expect.stringContaining('/jobs/77') });
  });

  it.each([
    [401, 'POST'],
    [403, 'POST'],
    [404, 'GET'],
    [409, 'POST'],
    [422, 'POST'],
  ])('a complete %i is rejected, REMOTE_REJECTED, after_correction', async (status, method) => {
    const view = await f.run(command(plain(`/status/${status}`), { method }));
    expectError(view, Phase.remote_execution, Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction);
  });

  it('a 408 follows Rule R: reconcile for a POST, backoff for a safe GET', async () => {
    expectError(await f.run(command(plain('/status/408'))), Phase.remote_execution, Outcome.rejected, Code.REMOTE_REJECTED, Retry.reconcile);
    expectError(await f.run(command(plain('/status/408'), { method: 'GET' })), Phase.remote_execution, Outcome.rejected, Code.REMOTE_REJECTED, Retry.backoff);
  });

  it('a 429 is RATE_LIMITED with the Retry-After it sent', async () => {
    const view = await f.run(command(plain('/status/429?retry-after=3'), { method: 'GET' }));
    expectError(view, Phase.remote_execution, Outcome.rejected, Code.RATE_LIMITED, Retry.backoff);
    expect(view.error.retry_after_ms).toBe(3000);
  });

  it('a 500 is committed REMOTE_ERROR_RESPONSE: reconcile, backoff when safe, same key under a contract', async () => {
    expectError(await f.run(command(plain('/status/500'))), Phase.remote_execution, Outcome.committed, Code.REMOTE_ERROR_RESPONSE, Retry.reconcile);
    expectError(await f.run(command(plain('/status/503'), { method: 'GET' })), Phase.remote_execution, Outcome.committed, Code.REMOTE_ERROR_RESPONSE, Retry.backoff);
    const keyed = await f.run(command(contract('/status/500'), { key: `k-500-${n}` }));
    expectError(keyed, Phase.remote_execution, Outcome.committed, Code.REMOTE_ERROR_RESPONSE, Retry.same_idempotency_key);
  });

  it('a 502 with Proxy-Status is unknown: an intermediary spoke, not the origin', async () => {
    const view = await f.run(command(plain('/proxy-status/502')));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expect(view.evidence.hop).toMatch(/^proxy:/);
    expect(view.evidence.proxy_status?.length).toBeGreaterThan(0);
  });

  it('a 504 is unknown', async () => {
    const view = await f.run(command(plain('/status/504'), { method: 'GET' }));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.backoff);
  });

  it('under a contract, 409 is IDEMPOTENCY_KEY_IN_USE and 422 is IDEMPOTENCY_MISMATCH, and the key was sent', async () => {
    const key = `k-409-${n}`;
    const inUse = await f.run(command(contract('/status/409'), { key }));
    expectError(inUse, Phase.remote_execution, Outcome.rejected, Code.IDEMPOTENCY_KEY_IN_USE, Retry.same_idempotency_key);
    expect(inUse.evidence.idempotency).toMatchObject({ key, scope: 'e2e.payments', remote_contract: 'configured' });
    expect(f.contract.requests.at(-1)?.headers['idempotency-key']).toBe(key);
    const mismatch = await f.run(command(contract('/status/422'), { key: `k-422-${n}` }));
    expectError(mismatch, Phase.remote_execution, Outcome.rejected, Code.IDEMPOTENCY_MISMATCH, Retry.after_correction);
  });

  it('a body over response_body_bytes is RESPONSE_TRUNCATED, never retried, stored without its body', async () => {
    const view = await f.run(command(plain('/big/100000'), { method: 'GET' }));
    expectError(view, Phase.remote_execution, Outcome.committed, Code.RESPONSE_TRUNCATED, Retry.never);
    const result = await f.stack.request('results.fetch', { invocation_id: view.invocation_id });
    expect(result.complete).toBe(false);
    expect(result.http.body).toBeUndefined();
  });
});

describe('remote execution: the outcome is unknown once the request may have left', () => {
  it('a close after the request was read is REMOTE_OUTCOME_UNKNOWN, and the server counted the effect', async () => {
    const before = f.plain.effects('/close-after-request');
    const view = await f.run(command(plain('/close-after-request')));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, request_complete: true, response_headers_received: false });
    expect(f.plain.effects('/close-after-request')).toBe(before + 1);
  });

  it('Rule U: backoff for a safe GET, same_idempotency_key under a contract', async () => {
    expectError(await f.run(command(plain('/close-after-request'), { method: 'GET' })), Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.backoff);
    const keyed = await f.run(command(contract('/close-after-request'), { key: `k-u-${n}` }));
    expectError(keyed, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.same_idempotency_key);
  });

  it('1xx then a close is REMOTE_OUTCOME_UNKNOWN: interim responses do not count', async () => {
    const view = await f.run(command(plain('/interim-then-close?hints=1')));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
  });

  it.each(['/close-mid-headers', '/close-mid-body', '/reset-mid-body', '/chunked-broken', '/chunked-unterminated', '/close-delimited-reset'])(
    'a final response cut short (%s) is REMOTE_RESULT_INCOMPLETE',
    async (path) => {
      const view = await f.run(command(plain(path)));
      expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, Retry.reconcile);
      expect(view.evidence.response_complete).toBe(false);
    },
  );

  it("the broker's own timeout with no response is REMOTE_OUTCOME_UNKNOWN; in the middle of a body REMOTE_RESULT_INCOMPLETE", async () => {
    expectError(await f.run(command(plain('/hang'))), Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expectError(await f.run(command(plain('/hang-body'))), Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, Retry.reconcile);
  });

  it('a pooled connection the server closed is never reported as not_attempted', async () => {
    const first = await f.run(command(plain('/keepalive-then-close'), { method: 'GET' }));
    expect(first.outcome).toBe(Outcome.committed);
    const views = [];
    for (let i = 0; i < 3; i++) views.push(await f.run(command(plain('/status/201'))));
    for (const view of views) {
      expect(view.outcome).not.toBe(Outcome.not_attempted);
      if (view.outcome === Outcome.unknown) expect(view.evidence.connection.reused).toBe(true);
    }
  });
});

describe('redirects: same_origin', () => {
  async function historyOf(id: string) {
    return new Journal(f.stack.res, f.stack.prefix, 'e2e-reader').read(id);
  }

  it('a same-origin 307 is followed as a new attempt: two DISPATCH_STARTED, the final 201 committed and fetchable', async () => {
    const before = f.redirecting.requests.length;
    const view = await f.run(command(`${f.redirecting.origin}/redirect/307?to=/status/201`));
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.attempts.map((a: any) => [a.attempt, a.outcome, a.code])).toEqual([
      [1, Outcome.committed, null],
      [2, Outcome.committed, null],
    ]);
    expect(view.evidence).toMatchObject({ attempt: 2, response_status: 201, dispatch_started: true, response_complete: true });
    const history = await historyOf(view.invocation_id);
    const starts = history.filter((e) => e.type === EventType.DISPATCH_STARTED);
    expect(starts.map((e) => e.attempt)).toEqual([1, 2]);
    const first = history.find((e) => e.type === EventType.REMOTE_RESPONSE_COMPLETE && e.attempt === 1);
    expect(first?.data).toMatchObject({ response_status: 307, redirect: { status: 307, location: '/status/201' } });
    const seen = f.redirecting.requests.slice(before);
    expect(seen.map((r) => [r.method, r.target])).toEqual([
      ['POST', '/redirect/307?to=/status/201'],
      ['POST', '/status/201'],
    ]);
    expect(seen[1]!.headers['authorization']).toBe(`Bearer ${CANARY}`);
    const result = await f.stack.request('results.fetch', { invocation_id: view.invocation_id });
    expect(result).toMatchObject({ outcome: Outcome.committed, complete: true, http: { status: 201 } });
    expect(Buffer.from(result.http.body.base64, 'base64').toString()).toBe('status 201');
    // Every event of the chain folds: the read model records no anomaly for it.
    const projected = await f.stack.projected(view.invocation_id, (v) => v.result?.result_digest === result.result_digest);
    expect(projected.attempts).toHaveLength(2);
    const { body } = await f.stack.api('/v1/anomalies');
    expect(body.anomalies.filter((a: any) => a.invocation_id === view.invocation_id)).toEqual([]);
  });

  it('a Location on another origin is not followed: the other server counts no effect and never sees the credential', async () => {
    const elsewhere = encodeURIComponent(`${f.plain.origin}/cross-origin-target`);
    const view = await f.run(command(`${f.redirecting.origin}/redirect/302?to=${elsewhere}`));
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.attempts).toHaveLength(1);
    expect(view.evidence.response_status).toBe(302);
    const history = await historyOf(view.invocation_id);
    expect(history.filter((e) => e.type === EventType.DISPATCH_STARTED)).toHaveLength(1);
    expect(f.plain.effects('/cross-origin-target')).toBe(0);
    expect(f.plain.requests.some((r) => r.pathname === '/cross-origin-target')).toBe(false);
  });

  it('a follow-up that times out keeps the outcome committed and reports its own error', async () => {
    const view = await f.run(command(`${f.redirecting.origin}/redirect/307?to=/hang`, { method: 'GET' }));
    expect(view.status).toBe('resolved');
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, outcome: Outcome.committed });
    expect(view.attempts[1]).toMatchObject({ attempt: 2, outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN });
  });
});

describe('forward proxy (policy `proxy`)', () => {
  it('a refused CONNECT is PROXY_TUNNEL_FAILED: connection_setup, not_attempted, backoff', async () => {
    const view = await f.run(command(`http://127.0.0.1:${f.behindRefusingProxy}/x`));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.PROXY_TUNNEL_FAILED, Retry.backoff);
    expect(view.evidence).toMatchObject({ dispatch_started: false, stage: Stage.proxy_connect });
    expect(view.attempts.map((a: any) => a.connect_try)).toEqual([1, 2]);
  });

  it('an accepting proxy tunnels to the target: committed', async () => {
    const before = f.proxied.effects('/status/201');
    const view = await f.run(command(`${f.proxied.origin}/status/201`));
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(f.proxy.tunnels).toContain(`127.0.0.1:${f.proxied.port}`);
    expect(f.proxied.effects('/status/201')).toBe(before + 1);
  });
});

describe('the caller gives up after dispatch', () => {
  it('a passed deadline answers CALLER_CANCELLED at once, and the late outcome is still classified', async () => {
    const submitted = await f.stack.request('actions.submit', command(plain('/hang'), { timeout_ms: 300 }));
    const early = await f.stack.request('actions.await', { invocation_id: submitted.invocation_id, timeout_ms: 1200 }, 6000);
    expect(early.cancelled).toBe(true);
    expect(early.outcome).toBe(Outcome.unknown);
    expect(early.error).toMatchObject({ code: Code.CALLER_CANCELLED, phase: Phase.remote_execution, retry: Retry.reconcile });
    const deadline = Date.now() + 10_000;
    let late = early;
    for (let i = 0; i < 50 && Date.now() < deadline && late.error?.code === Code.CALLER_CANCELLED; i++) {
      await new Promise((r) => setTimeout(r, 200));
      late = await f.stack.request('actions.get', { invocation_id: submitted.invocation_id });
    }
    expect(late.cancelled).toBe(true);
    expect(late.error.code).toBe(Code.REMOTE_OUTCOME_UNKNOWN);
  });

  it('cancel after dispatch keeps reading: the late complete response is committed and fetchable', async () => {
    const submitted = await f.stack.request('actions.submit', command(plain('/slow-headers?delay-ms=700')));
    const deadline = Date.now() + 5000;
    let view = submitted;
    for (let i = 0; i < 50 && Date.now() < deadline && !view.evidence.dispatch_started; i++) {
      await new Promise((r) => setTimeout(r, 50));
      view = await f.stack.request('actions.get', { invocation_id: submitted.invocation_id });
    }
    expect(view.evidence.dispatch_started).toBe(true);
    const cancelled = await f.stack.request('actions.cancel', { invocation_id: submitted.invocation_id });
    expect(cancelled.cancelled).toBe(true);
    expect(cancelled.outcome).toBe(Outcome.unknown);
    const settled = await f.awaitResolved(submitted.invocation_id);
    for (let i = 0; i < 40 && settled.outcome !== Outcome.committed; i++) {
      await new Promise((r) => setTimeout(r, 200));
      Object.assign(settled, await f.stack.request('actions.get', { invocation_id: submitted.invocation_id }));
    }
    expect(settled).toMatchObject({ cancelled: true, outcome: Outcome.committed });
  });
});

describe('credential injection', () => {
  it.each([
    ['http_bearer', [], (h: Record<string, string>, _t: string) => h.authorization === `Bearer tok-bearer`],
    ['http_basic', ['--user', 'alice'], (h: Record<string, string>) => h.authorization === `Basic ${Buffer.from('alice:tok-basic').toString('base64')}`],
    ['http_header', ['--header-name', 'X-Api-Key'], (h: Record<string, string>) => h['x-api-key'] === 'tok-header'],
    ['http_query', ['--param', 'api_key'], (_h: Record<string, string>, target: string) => target.includes('api_key=tok-query')],
  ] as const)('%s puts the secret where the remote expects it and nowhere in the record', async (type, extra, check) => {
    const id = `inj-${type}`;
    const secret = `tok-${type.split('_')[1]}`;
    await f.putCredential(id, type, [`http://127.0.0.1:*`], secret, [...extra]);
    const view = await f.run(command(plain('/echo'), { credential: id, method: 'GET' }));
    expect(view).toMatchObject({ outcome: Outcome.committed, error: null });
    expect(view.evidence.credential).toMatchObject({ id, injection: type });
    const seen = f.plain.requests.at(-1)!;
    expect(check(seen.headers, seen.target)).toBe(true);
    expect(JSON.stringify(view)).not.toContain(secret);
    const result = await f.stack.request('results.fetch', { invocation_id: view.invocation_id });
    const body = Buffer.from(result.http.body.base64, 'base64').toString();
    expect(body).not.toContain(secret);
    expect(body).toContain('[REDACTED]');
  });
});

describe('the result store fails after a complete response', () => {
  it('is RESULT_STORE_FAILED in result_delivery, outcome unknown (the completion never became durable), intervention required', async () => {
    const { jsm } = f.stack.res;
    const stream = `OBJ_${f.stack.prefix}_results`;
    const original = (await jsm.streams.info(stream)).config;
    // A store that refuses anything new: the fault is the real server's refusal.
    await jsm.streams.update(stream, { ...original, max_bytes: 1, discard: 'new' as never });
    try {
      const before = f.plain.effects('/big/20000');
      const view = await f.run(command(plain('/big/20000'), { method: 'GET' }));
      expectError(view, Phase.result_delivery, Outcome.unknown, Code.RESULT_STORE_FAILED, Retry.never);
      expect(view.evidence.intervention_required).toBe(true);
      expect(view.evidence.dispatch_started).toBe(true);
      expect(f.plain.effects('/big/20000')).toBe(before + 1);
    } finally {
      await jsm.streams.update(stream, original);
    }
    const after = await f.run(command(plain('/status/201')));
    expect(after.outcome).toBe(Outcome.committed);
  });
});

describe('the canary secret', () => {
  it('appears in no event, KV value, object, log, read-model row, RecordView or result', async () => {
    // The remote echoes the canary back: the stored body must carry it redacted.
    const echoed = await f.run(command(plain('/echo'), { method: 'GET' }));
    expect(echoed.outcome).toBe(Outcome.committed);
    expect(f.plain.requests.at(-1)?.headers.authorization).toBe(`Bearer ${CANARY}`);
    const secrets = [CANARY, 'tok-bearer', 'tok-basic', 'tok-header', 'tok-query', 'e2e passphrase, test only'];
    const places = await everythingStored(f.stack);
    expect(places.length).toBeGreaterThan(50);
    expect(leaks(places, secrets)).toEqual([]);
  });
});
