import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SetupFailure, Stage } from '@postern/contract';
import { freePort, startHostileHttpServer, testCertificates, type HostileHttpServer } from '@postern/testkit';
import { openConnection, originOf } from './connect.js';
import { ConnectAbortedError } from './errors.js';
import { sendRequest } from './exchange.js';

const certs = testCertificates();
const ca = readFileSync(certs.ca, 'utf8');
let tlsServer: HostileHttpServer;
let wrongHost: HostileHttpServer;
let selfSigned: HostileHttpServer;

beforeAll(async () => {
  [tlsServer, wrongHost, selfSigned] = await Promise.all([
    startHostileHttpServer({ tls: true }),
    startHostileHttpServer({ tls: true, certificate: 'wrong-host' }),
    startHostileHttpServer({ tls: true, certificate: 'self-signed' }),
  ]);
});
afterAll(async () => {
  await Promise.all([tlsServer.close(), wrongHost.close(), selfSigned.close()]);
});

describe('openConnection', () => {
  it('connects over TCP to an IP literal without a DNS stage', async () => {
    const plain = await startHostileHttpServer();
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: plain.port }, { connectTimeoutMs: 1_000 });
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.stages.map((s) => s.stage)).toEqual([Stage.tcp_connect]);
      expect(r.connection.alive).toBe(true);
      expect(r.connection.reused).toBe(false);
      expect(r.connection.remoteAddress).toBe('127.0.0.1');
      expect(r.connection.id).toMatch(/^c-\d+$/);
      r.connection.close();
      expect(r.connection.alive).toBe(false);
    }
    await plain.close();
  });

  it('reports a refused port as tcp_refused at tcp_connect', async () => {
    const port = await freePort();
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port }, { connectTimeoutMs: 1_000 });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tcp_refused, stage: Stage.tcp_connect, diagnostic: 'ECONNREFUSED' });
    expect(r.stages.at(-1)).toMatchObject({ stage: Stage.tcp_connect, ok: false });
  });

  it('uses the injected resolver and records the DNS stage', async () => {
    const plain = await startHostileHttpServer();
    const asked: string[] = [];
    const r = await openConnection(
      { scheme: 'http', host: 'api.test.invalid', port: plain.port },
      { connectTimeoutMs: 1_000, lookup: async (h) => (asked.push(h), [{ address: '127.0.0.1', family: 4 }]) },
    );
    expect(asked).toEqual(['api.test.invalid']);
    expect(r.ok && r.stages.map((s) => [s.stage, s.ok])).toEqual([
      [Stage.dns, true],
      [Stage.tcp_connect, true],
    ]);
    if (r.ok) r.connection.close();
    await plain.close();
  });

  it('maps ENOTFOUND to dns_nxdomain', async () => {
    const r = await openConnection(
      { scheme: 'http', host: 'nope.test.invalid', port: 80 },
      { connectTimeoutMs: 1_000, lookup: () => Promise.reject(Object.assign(new Error('nx'), { code: 'ENOTFOUND' })) },
    );
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.dns_nxdomain, stage: Stage.dns, diagnostic: 'ENOTFOUND' });
  });

  it('maps EAI_AGAIN to dns_temporary', async () => {
    const r = await openConnection(
      { scheme: 'http', host: 'flaky.test.invalid', port: 80 },
      { connectTimeoutMs: 1_000, lookup: () => Promise.reject(Object.assign(new Error('again'), { code: 'EAI_AGAIN' })) },
    );
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.dns_temporary, stage: Stage.dns, diagnostic: 'EAI_AGAIN' });
  });

  it('treats an empty answer as dns_nxdomain', async () => {
    const r = await openConnection({ scheme: 'http', host: 'empty.test.invalid', port: 80 }, { connectTimeoutMs: 1_000, lookup: async () => [] });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.dns_nxdomain, stage: Stage.dns });
  });

  it('a resolver slower than the connect timeout is dns_temporary', async () => {
    const r = await openConnection(
      { scheme: 'http', host: 'slow.test.invalid', port: 80 },
      { connectTimeoutMs: 100, lookup: () => new Promise((res) => setTimeout(() => res([{ address: '127.0.0.1', family: 4 }]), 1_000)) },
    );
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.dns_temporary, stage: Stage.dns });
  });

  it('tries the next address when the first one refuses', async () => {
    const plain = await startHostileHttpServer();
    const r = await openConnection(
      { scheme: 'http', host: 'two.test.invalid', port: plain.port },
      { connectTimeoutMs: 1_000, lookup: async () => [{ address: '127.0.0.2', family: 4 }, { address: '127.0.0.1', family: 4 }] },
    );
    // 127.0.0.2 has no listener on that port: refused, then the second address answers.
    expect(r.ok).toBe(true);
    if (r.ok) r.connection.close();
    await plain.close();
  });

  it('throws ConnectAbortedError when the caller aborts', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(openConnection({ scheme: 'http', host: '127.0.0.1', port: 1 }, { connectTimeoutMs: 1_000, signal: ac.signal })).rejects.toBeInstanceOf(ConnectAbortedError);
  });

  it('originOf brackets IPv6 literals', () => {
    expect(originOf({ scheme: 'https', host: '::1', port: 8443 })).toBe('https://[::1]:8443');
    expect(originOf({ scheme: 'http', host: 'localhost', port: 80 })).toBe('http://localhost:80');
  });
});

describe('TLS', () => {
  it('accepts the server when the policy CA is given and records the peer fingerprint', async () => {
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: tlsServer.port }, { connectTimeoutMs: 2_000, ca: [ca] });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const expected = createHash('sha256').update(new X509Certificate(readFileSync(certs.server.cert)).raw).digest('hex');
    expect(r.connection.tlsPeerSha256).toBe(expected);
    expect(r.stages.map((s) => s.stage)).toEqual([Stage.tcp_connect, Stage.tls_handshake]);
    const body: Uint8Array[] = [];
    const report = await sendRequest(
      r.connection,
      { method: 'GET', path: '/status/201', headers: { host: `127.0.0.1:${tlsServer.port}` } },
      { responseHeadersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, responseBodyBytes: 1000, responseReadBytes: 1000, onBodyChunk: (c) => void body.push(c) },
    );
    expect(report).toMatchObject({ status: 201, body_complete: true, keep_alive: true });
    const again = await sendRequest(
      r.connection,
      { method: 'GET', path: '/status/200', headers: { host: `127.0.0.1:${tlsServer.port}` } },
      { responseHeadersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, responseBodyBytes: 1000, responseReadBytes: 1000, onBodyChunk: () => undefined },
    );
    expect(again).toMatchObject({ status: 200, body_complete: true, connection_reused: true });
    expect(tlsServer.connections).toBe(1);
    r.connection.close();
  });

  it('verifies the name localhost too', async () => {
    const r = await openConnection({ scheme: 'https', host: 'localhost', port: tlsServer.port }, { connectTimeoutMs: 2_000, ca: [ca], lookup: async () => [{ address: '127.0.0.1', family: 4 }] });
    expect(r.ok).toBe(true);
    if (r.ok) r.connection.close();
  });

  it('rejects the test CA when the policy does not name it', async () => {
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: tlsServer.port }, { connectTimeoutMs: 2_000 });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tls_cert_rejected, stage: Stage.tls_handshake });
  });

  it('rejects a certificate for another host', async () => {
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: wrongHost.port }, { connectTimeoutMs: 2_000, ca: [ca] });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tls_cert_rejected, stage: Stage.tls_handshake, diagnostic: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('rejects a self-signed certificate', async () => {
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: selfSigned.port }, { connectTimeoutMs: 2_000, ca: [ca] });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tls_cert_rejected, stage: Stage.tls_handshake, diagnostic: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
  });

  it('reports a plain-text server behind https as tls_handshake', async () => {
    const plain = await startHostileHttpServer();
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: plain.port }, { connectTimeoutMs: 1_000, ca: [ca] });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tls_handshake, stage: Stage.tls_handshake });
    await plain.close();
  });

  it('a TLS server that never answers the handshake times out as tls_handshake', async () => {
    const { createServer } = await import('node:net');
    const held: import('node:net').Socket[] = [];
    const silent = createServer((s) => void held.push(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as { port: number }).port;
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port }, { connectTimeoutMs: 200, ca: [ca] });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tls_handshake, stage: Stage.tls_handshake, diagnostic: 'ETIMEDOUT' });
    for (const s of held) s.destroy();
    await new Promise<void>((r2) => silent.close(() => r2()));
  });
});
