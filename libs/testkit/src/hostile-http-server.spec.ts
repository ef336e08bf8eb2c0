import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostileBodyBytes, startHostileHttpServer, type HostileHttpServer } from './hostile-http-server.js';
import { testCertificates } from './test-certificates.js';

let server: HostileHttpServer;
beforeAll(async () => {
  server = await startHostileHttpServer();
});
afterAll(async () => {
  await server.close();
});

interface Raw {
  bytes: Buffer;
  ended: 'fin' | 'reset' | 'timeout';
}

/** Sends raw bytes and collects everything until FIN, reset, or `waitMs`. */
function raw(request: string, waitMs = 500, socket?: Socket): Promise<Raw> {
  return new Promise((resolve) => {
    const s = socket ?? connect(server.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      s.destroy();
      resolve({ bytes: Buffer.concat(chunks), ended: 'timeout' });
    }, waitMs);
    s.on('data', (c: Buffer) => chunks.push(c));
    s.on('end', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), ended: 'fin' });
    });
    s.on('error', () => {
      clearTimeout(timer);
      resolve({ bytes: Buffer.concat(chunks), ended: 'reset' });
    });
    s.write(request);
  });
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;

describe('startHostileHttpServer', () => {
  it('answers /status/<code> with Retry-After on request and keeps the socket open', async () => {
    const r = await raw(get('/status/503?retry-after=7'), 200);
    const text = r.bytes.toString();
    expect(text.startsWith('HTTP/1.1 503 Service Unavailable\r\n')).toBe(true);
    expect(text).toContain('Retry-After: 7\r\n');
    expect(text.endsWith('status 503')).toBe(true);
    expect(r.ended).toBe('timeout');
  });

  it('serves several requests on one connection and counts effects and connections', async () => {
    const before = server.connections;
    const effects = server.effects('/status/200');
    const r = await raw(get('/status/200') + get('/status/200'), 200);
    expect(r.bytes.toString().match(/HTTP\/1\.1 200/g)).toHaveLength(2);
    expect(server.effects('/status/200')).toBe(effects + 2);
    expect(server.connections).toBe(before + 1);
  });

  it('echoes method, headers and body and records the request', async () => {
    const r = await raw(`POST /echo?q=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t\r\nContent-Length: 3\r\n\r\nabc`, 200);
    const body = JSON.parse(r.bytes.toString().split('\r\n\r\n')[1] as string);
    expect(body).toMatchObject({ method: 'POST', target: '/echo?q=1', body: 'abc', headers: { authorization: 'Bearer t' } });
    const last = server.requests.at(-1);
    expect(last).toMatchObject({ method: 'POST', pathname: '/echo', target: '/echo?q=1' });
    expect(last?.body.toString()).toBe('abc');
    expect(last?.query.get('q')).toBe('1');
  });

  it('counts an effect only once the whole request was read', async () => {
    const before = server.effects('/echo');
    const s = connect(server.port, '127.0.0.1');
    await new Promise((r) => s.once('connect', r));
    s.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc');
    await new Promise((r) => setTimeout(r, 50));
    expect(server.effects('/echo')).toBe(before);
    await raw('defghij', 200, s);
    expect(server.effects('/echo')).toBe(before + 1);
  });

  it('closes after reading the request', async () => {
    const r = await raw(get('/close-after-request'));
    expect(r).toMatchObject({ ended: 'fin' });
    expect(r.bytes.length).toBe(0);
  });

  it('closes mid-headers', async () => {
    const r = await raw(get('/close-mid-headers'));
    expect(r.ended).toBe('fin');
    expect(r.bytes.toString()).not.toContain('\r\n\r\n');
  });

  it('closes mid-body with fewer bytes than Content-Length', async () => {
    const r = await raw(get('/close-mid-body'));
    expect(r.ended).toBe('fin');
    const [head, body] = r.bytes.toString().split('\r\n\r\n');
    expect(head).toContain('Content-Length: 100');
    expect(body).toHaveLength(10);
  });

  it('resets mid-body', async () => {
    const r = await raw(get('/reset-mid-body'));
    expect(r.ended).toBe('reset');
  });

  it('sends broken and unterminated chunked framing', async () => {
    expect((await raw(get('/chunked-broken'))).bytes.toString()).toContain('zz-not-hex');
    const u = await raw(get('/chunked-unterminated'));
    expect(u.ended).toBe('fin');
    expect(u.bytes.toString()).not.toContain('\r\n0\r\n');
  });

  it('sends close-delimited bodies ended by FIN or by reset', async () => {
    const a = await raw(get('/close-delimited'));
    expect(a.ended).toBe('fin');
    expect(a.bytes.toString()).not.toMatch(/content-length/i);
    expect((await raw(get('/close-delimited-reset'))).ended).toBe('reset');
  });

  it('answers 100 (and 103) then closes', async () => {
    const r = await raw(get('/interim-then-close?hints=1'));
    expect(r.ended).toBe('fin');
    expect(r.bytes.toString()).toBe('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n');
  });

  it('sends Proxy-Status on a 502', async () => {
    expect((await raw(get('/proxy-status/502'), 200)).bytes.toString()).toContain('Proxy-Status: proxy; error=http_response_incomplete');
  });

  it('hangs without answering, but counts the effect', async () => {
    const before = server.effects('/hang');
    const r = await raw(get('/hang'), 150);
    expect(r).toMatchObject({ ended: 'timeout' });
    expect(r.bytes.length).toBe(0);
    expect(server.effects('/hang')).toBe(before + 1);
  });

  it('sends complete headers at once and the body only after the delay', async () => {
    const early = await raw(get('/slow-body?delay-ms=400'), 150);
    expect(early.bytes.toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Content-Length: 4\r\n[\s\S]*\r\n\r\n$/);
    const whole = await raw(get('/slow-body?delay-ms=100'), 1_000);
    expect(whole.ended).toBe('fin');
    expect(whole.bytes.toString().endsWith('\r\n\r\nlate')).toBe(true);
  });

  it('sends a large body of deterministic bytes', async () => {
    const r = await raw(get('/big/100000'), 300);
    const body = r.bytes.subarray(r.bytes.indexOf('\r\n\r\n') + 4);
    expect(body.equals(hostileBodyBytes(100_000))).toBe(true);
  });

  it('closes an idle keep-alive socket right after the response', async () => {
    const r = await raw(get('/keepalive-then-close'), 1_000);
    expect(r.ended).toBe('fin');
    expect(r.bytes.toString()).toContain('Connection: keep-alive');
  });

  it('redirects with Location', async () => {
    expect((await raw(get('/redirect/307?to=/status/201'), 200)).bytes.toString()).toContain('Location: /status/201');
  });

  it('answers a malformed request with 400 and closes', async () => {
    const r = await raw('NOT HTTP\r\n\r\n');
    expect(r.bytes.toString()).toMatch(/^HTTP\/1\.1 400/);
    expect(r.ended).toBe('fin');
  });

  it('serves TLS with the test certificate', async () => {
    const tls = await startHostileHttpServer({ tls: true });
    const certs = testCertificates();
    const s = tlsConnect({ host: '127.0.0.1', port: tls.port, ca: readFileSync(certs.ca) });
    await new Promise((r) => s.once('secureConnect', r));
    expect(s.authorized).toBe(true);
    const r = await raw(get('/status/201'), 200, s as unknown as Socket);
    expect(r.bytes.toString()).toMatch(/^HTTP\/1\.1 201/);
    expect(tls.origin).toBe(`https://127.0.0.1:${tls.port}`);
    await tls.close();
  });
});
