import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { startHostileHttpServer, hostileBodyBytes, type HostileHttpServer, type HostileRequest } from '@postern/testkit';
import { openConnection } from './connect.js';
import { ConnectionPool } from './connection-pool.js';
import { sendRequest } from './exchange.js';
import type { HttpConnection } from './http-connection.js';
import { injectCredential, redact, secretForms } from './injection.js';
import type { ExchangeOptions, HttpExchangeReport, HttpRequest } from './types.js';

let server: HostileHttpServer;

beforeAll(async () => {
  server = await startHostileHttpServer();
});
afterAll(async () => {
  await server.close();
});

async function connect(): Promise<HttpConnection> {
  const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: server.port }, { connectTimeoutMs: 2_000 });
  if (!r.ok) throw new Error(`connect failed: ${r.failure}`);
  return r.connection;
}

interface Run {
  report: HttpExchangeReport;
  body: Buffer;
  conn: HttpConnection;
}

async function exchange(path: string, over: Partial<ExchangeOptions> = {}, req: Partial<HttpRequest> = {}, conn?: HttpConnection): Promise<Run> {
  const c = conn ?? (await connect());
  const chunks: Uint8Array[] = [];
  const report = await sendRequest(
    c,
    { method: 'GET', path, headers: { host: `127.0.0.1:${server.port}` }, ...req },
    {
      responseHeadersTimeoutMs: 2_000,
      bodyTimeoutMs: 2_000,
      responseBodyBytes: 1024 * 1024,
      responseReadBytes: 4 * 1024 * 1024,
      onBodyChunk: (chunk) => {
        chunks.push(chunk);
      },
      ...over,
    },
  );
  return { report, body: Buffer.concat(chunks), conn: c };
}

describe('complete responses of every status class', () => {
  for (const status of [200, 201, 301, 404, 429, 500, 503]) {
    it(`reads a complete ${status}`, async () => {
      const { report, body, conn } = await exchange(`/status/${status}`);
      expect(report).toMatchObject({
        status,
        headers_complete: true,
        response_started: true,
        request_headers_sent: true,
        request_complete: true,
        write_failed: false,
        framing: 'content-length',
        body_complete: true,
        ended_by: 'complete',
        keep_alive: true,
        connection_reused: false,
        broker_timeout: null,
      });
      expect(body.toString()).toBe(`status ${status}`);
      expect(report.body_bytes_read).toBe(body.length);
      conn.close();
    });
  }

  it('reads a 204 with no body', async () => {
    const { report, conn } = await exchange('/status/204');
    expect(report).toMatchObject({ status: 204, body_complete: true, body_bytes_read: 0 });
    conn.close();
  });

  it('keeps Retry-After and Proxy-Status headers as raw facts', async () => {
    const a = await exchange('/status/503?retry-after=3');
    expect(a.report.headers).toContainEqual(['Retry-After', '3']);
    a.conn.close();
    const b = await exchange('/proxy-status/502');
    expect(b.report.status).toBe(502);
    expect(b.report.body_complete).toBe(true);
    expect(b.report.headers?.find(([n]) => n === 'Proxy-Status')?.[1]).toContain('error=http_response_incomplete');
    b.conn.close();
  });

  it('reads a redirect without following it', async () => {
    const before = server.effects('/status/200');
    const { report, conn } = await exchange('/redirect/302?to=/status/200');
    expect(report.status).toBe(302);
    expect(report.headers).toContainEqual(['Location', '/status/200']);
    expect(server.effects('/status/200')).toBe(before);
    conn.close();
  });

  it('reads a chunked body with extensions and trailers as complete', async () => {
    const { report, body, conn } = await exchange('/chunked');
    expect(report).toMatchObject({ status: 200, framing: 'chunked', body_complete: true, ended_by: 'complete' });
    expect(body.toString()).toBe('hello, world');
    conn.close();
  });

  it('sends a request body and reports it complete', async () => {
    const { report, body, conn } = await exchange('/echo', {}, { method: 'POST', body: new TextEncoder().encode('{"a":1}'), headers: { host: 'x', 'content-type': 'application/json' } });
    expect(report.request_complete).toBe(true);
    expect(JSON.parse(body.toString()).body).toBe('{"a":1}');
    conn.close();
  });
});

describe('broken responses', () => {
  it('close after the request: handed over, no response, FIN', async () => {
    const { report } = await exchange('/close-after-request');
    expect(report).toMatchObject({ request_complete: true, write_failed: false, response_started: false, status: null, body_complete: false, ended_by: 'fin', keep_alive: false });
  });

  it('close mid-headers: started, no status, not complete', async () => {
    const { report } = await exchange('/close-mid-headers');
    expect(report).toMatchObject({ request_complete: true, response_started: true, status: null, headers_complete: false, body_complete: false, ended_by: 'fin' });
  });

  it('close mid-body: status and headers, body not complete', async () => {
    const { report } = await exchange('/close-mid-body');
    expect(report).toMatchObject({ status: 200, headers_complete: true, framing: 'content-length', body_complete: false, ended_by: 'fin', keep_alive: false });
  });

  it('reset mid-body: body not complete, ended by reset', async () => {
    const { report } = await exchange('/reset-mid-body');
    expect(report).toMatchObject({ status: 200, headers_complete: true, body_complete: false, ended_by: 'reset' });
  });

  it('broken chunk size line: not complete', async () => {
    const { report } = await exchange('/chunked-broken');
    expect(report).toMatchObject({ status: 200, framing: 'chunked', body_complete: false });
    expect(report.diagnostic).toBeDefined();
  });

  it('chunked body without the last chunk: not complete, whatever undici says', async () => {
    const { report } = await exchange('/chunked-unterminated');
    expect(report).toMatchObject({ status: 200, framing: 'chunked', body_complete: false, ended_by: 'fin' });
  });

  it('close-delimited body ended by a clean FIN is complete', async () => {
    const { report, body } = await exchange('/close-delimited');
    expect(report).toMatchObject({ status: 200, framing: 'close', body_complete: true, ended_by: 'complete', keep_alive: false });
    expect(body.toString()).toBe('body until close');
  });

  it('close-delimited body ended by a reset is not complete', async () => {
    const { report } = await exchange('/close-delimited-reset');
    expect(report).toMatchObject({ status: 200, framing: 'close', body_complete: false, ended_by: 'reset' });
  });

  it('interim responses then close: no final response', async () => {
    const { report } = await exchange('/interim-then-close');
    expect(report).toMatchObject({ interim_statuses: [100], response_started: false, status: null, body_complete: false });
    expect(report.ended_by).not.toBe('complete');
    const hints = await exchange('/interim-then-close?hints=1');
    expect(hints.report.interim_statuses).toEqual([100, 103]);
    expect(hints.report.response_started).toBe(false);
  });
});

describe('broker timeouts and limits', () => {
  it('a server that never answers hits the response-headers timeout', async () => {
    const t0 = Date.now();
    const { report, conn } = await exchange('/hang', { responseHeadersTimeoutMs: 200 });
    expect(Date.now() - t0).toBeLessThan(1_500);
    expect(report).toMatchObject({ request_complete: true, response_started: false, status: null, broker_timeout: 'response_headers', ended_by: 'timeout', write_failed: false });
    expect(conn.alive).toBe(false);
  });

  it('headers that never finish hit the response-headers timeout with the response started', async () => {
    const { report } = await exchange('/slow-headers?delay-ms=5000', { responseHeadersTimeoutMs: 200 });
    expect(report).toMatchObject({ response_started: true, status: null, broker_timeout: 'response_headers', ended_by: 'timeout' });
  });

  it('a body that stalls hits the body timeout', async () => {
    const { report } = await exchange('/hang-body', { bodyTimeoutMs: 200 });
    expect(report).toMatchObject({ status: 200, body_complete: false, broker_timeout: 'body', ended_by: 'timeout' });
  });

  it('a body over the store limit is read to the end, only the limit is passed', async () => {
    const { report, body } = await exchange('/big/300000', { responseBodyBytes: 100_000 });
    expect(report).toMatchObject({ status: 200, body_complete: true, body_over_limit: true, body_bytes_read: 300_000, body_bytes_passed: 100_000 });
    expect(body.equals(hostileBodyBytes(300_000).subarray(0, 100_000))).toBe(true);
  });

  it('a body over the read limit is cut and not complete', async () => {
    const { report } = await exchange('/big/3000000', { responseBodyBytes: 1000, responseReadBytes: 100_000 });
    expect(report).toMatchObject({ status: 200, body_complete: false, body_over_limit: true, ended_by: 'aborted', diagnostic: 'response_read_limit' });
    expect(report.body_bytes_passed).toBe(1000);
  });

  it('a slow body sink applies back-pressure and still gets every byte in order', async () => {
    const got: Uint8Array[] = [];
    const { report } = await exchange('/big/500000', {
      onBodyChunk: async (chunk) => {
        got.push(chunk);
        await new Promise((r) => setTimeout(r, 1));
      },
    });
    expect(report.body_complete).toBe(true);
    expect(Buffer.concat(got).equals(hostileBodyBytes(500_000))).toBe(true);
  });

  it('a failing body sink stops the exchange', async () => {
    const { report } = await exchange('/big/200000', {
      onBodyChunk: () => Promise.reject(Object.assign(new Error('store down'), { code: 'STORE_DOWN' })),
    });
    expect(report.body_complete).toBe(false);
    expect(report.diagnostic).toBe('body_sink_failed:STORE_DOWN');
  });

  it('a caller abort ends the exchange as aborted', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const { report } = await exchange('/hang', { signal: ac.signal });
    expect(report).toMatchObject({ ended_by: 'aborted', broker_timeout: null, status: null });
  });
});

describe('keep-alive and the stale pooled connection', () => {
  it('a second request on a kept-alive connection is reported as reused', async () => {
    const pool = new ConnectionPool();
    const first = await exchange('/status/200');
    expect(first.report.keep_alive).toBe(true);
    pool.release(first.conn);
    const again = pool.acquire(first.conn.origin);
    expect(again).toBe(first.conn);
    const second = await exchange('/status/201', {}, {}, again as HttpConnection);
    expect(second.report).toMatchObject({ connection_reused: true, status: 201, body_complete: true });
    expect(server.requests.at(-1)?.connection).toBe(server.requests.at(-2)?.connection);
    pool.close();
  });

  it('the pool never hands out a connection the server already closed', async () => {
    const pool = new ConnectionPool();
    const first = await exchange('/keepalive-then-close');
    expect(first.report).toMatchObject({ status: 200, body_complete: true, keep_alive: true });
    pool.release(first.conn);
    const deadline = Date.now() + 2_000;
    while (first.conn.alive && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(first.conn.alive).toBe(false);
    expect(pool.acquire(first.conn.origin)).toBeNull();
    pool.close();
  });

  it('a request on a stale connection is reported handed over, never as not sent', async () => {
    const first = await exchange('/keepalive-then-close?delay-ms=50');
    expect(first.report.keep_alive).toBe(true);
    const before = server.effects('/status/200');
    // Still alive by our knowledge; the server closes it while the request goes out.
    await new Promise((r) => setTimeout(r, 45));
    const second = await exchange('/status/200', {}, {}, first.conn);
    expect(second.report.connection_reused).toBe(true);
    if (second.report.status === null) {
      // Lost the race: the request was handed over (or the write failed), no response.
      expect(second.report.request_complete || second.report.write_failed).toBe(true);
      expect(second.report.body_complete).toBe(false);
      expect(server.effects('/status/200')).toBe(before);
    } else {
      expect(second.report.body_complete).toBe(true);
    }
  });

  it('a dead connection is refused before anything is handed over', async () => {
    const first = await exchange('/keepalive-then-close');
    const deadline = Date.now() + 2_000;
    while (first.conn.alive && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const before = server.effects();
    const second = await exchange('/status/200', {}, {}, first.conn);
    expect(second.report).toMatchObject({ request_headers_sent: false, request_complete: false, write_failed: false, diagnostic: 'connection_not_alive' });
    expect(server.effects()).toBe(before);
  });

  it('a connection closed by the server after a response is not keep-alive', async () => {
    const { report, conn } = await exchange('/close-delimited');
    expect(report.keep_alive).toBe(false);
    expect(conn.alive).toBe(false);
  });
});

describe('credential injection on the wire', () => {
  const secret = new TextEncoder().encode('canary-Secret/+=1');
  const cases = [
    { credential: { type: CredentialType.http_bearer }, check: (r: HostileRequest) => expect(r.headers['authorization']).toBe('Bearer canary-Secret/+=1') },
    {
      credential: { type: CredentialType.http_basic, user: 'bot' },
      check: (r: HostileRequest) => expect(r.headers['authorization']).toBe(`Basic ${Buffer.from('bot:canary-Secret/+=1').toString('base64')}`),
    },
    { credential: { type: CredentialType.http_header, header_name: 'X-Api-Key' }, check: (r: HostileRequest) => expect(r.headers['x-api-key']).toBe('canary-Secret/+=1') },
    { credential: { type: CredentialType.http_query, param: 'key' }, check: (r: HostileRequest) => expect(r.query.get('key')).toBe('canary-Secret/+=1') },
  ];
  for (const { credential, check } of cases) {
    it(`${credential.type} arrives as the server expects, and redaction removes it from the echo`, async () => {
      const injected = injectCredential({ path: '/echo?a=1', headers: { host: `127.0.0.1:${server.port}` } }, credential, secret);
      const { report, body, conn } = await exchange(injected.path, {}, { headers: injected.headers });
      expect(report.body_complete).toBe(true);
      const seen = server.requests.at(-1) as HostileRequest;
      expect(seen.query.get('a')).toBe('1');
      check(seen);
      const forms = secretForms(secret, credential.type === CredentialType.http_basic ? { user: 'bot' } : {});
      const stored = Buffer.from(redact(body, forms)).toString();
      expect(stored).toContain('[REDACTED]');
      for (const f of forms) expect(stored).not.toContain(f);
      conn.close();
    });
  }
});

describe('a reused connection the server dropped while the request went out', () => {
  it('is reported reused, handed over, no response, and the server counts no effect', async () => {
    const first = await exchange('/keepalive-then-reset');
    expect(first.report).toMatchObject({ status: 200, body_complete: true, keep_alive: true });
    expect(first.conn.alive).toBe(true);
    const before = server.effects();
    const second = await exchange('/status/200', {}, {}, first.conn);
    expect(second.report).toMatchObject({
      connection_reused: true,
      request_headers_sent: true,
      request_complete: true,
      response_started: false,
      status: null,
      body_complete: false,
      ended_by: 'reset',
      keep_alive: false,
    });
    expect(server.effects()).toBe(before);
    expect(first.conn.alive).toBe(false);
  });
});
