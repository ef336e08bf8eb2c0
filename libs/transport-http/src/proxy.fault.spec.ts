import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SetupFailure, Stage } from '@postern/contract';
import { freePort, startConnectProxy, startHostileHttpServer, testCertificates, type ConnectProxy, type HostileHttpServer } from '@postern/testkit';
import { openConnection } from './connect.js';
import { sendRequest } from './exchange.js';

let plain: HostileHttpServer;
let tls: HostileHttpServer;
let proxy: ConnectProxy;
const ca = readFileSync(testCertificates().ca, 'utf8');
const opts = { responseHeadersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, responseBodyBytes: 1000, responseReadBytes: 1000, onBodyChunk: () => undefined };

beforeAll(async () => {
  [plain, tls, proxy] = await Promise.all([startHostileHttpServer(), startHostileHttpServer({ tls: true }), startConnectProxy()]);
});
afterAll(async () => {
  await Promise.all([plain.close(), tls.close(), proxy.close()]);
});

describe('CONNECT proxy', () => {
  it('tunnels plain HTTP and records the proxy_connect stage', async () => {
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: plain.port }, { connectTimeoutMs: 2_000, proxy: { host: '127.0.0.1', port: proxy.port } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.stages.map((s) => s.stage)).toEqual([Stage.tcp_connect, Stage.proxy_connect]);
    const report = await sendRequest(r.connection, { method: 'GET', path: '/status/201', headers: { host: 'x' } }, opts);
    expect(report).toMatchObject({ status: 201, body_complete: true });
    expect(proxy.tunnels).toContain(`127.0.0.1:${plain.port}`);
    r.connection.close();
  });

  it('runs TLS to the origin inside the tunnel', async () => {
    const r = await openConnection({ scheme: 'https', host: '127.0.0.1', port: tls.port }, { connectTimeoutMs: 2_000, ca: [ca], proxy: { host: '127.0.0.1', port: proxy.port } });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.stages.map((s) => s.stage)).toEqual([Stage.tcp_connect, Stage.proxy_connect, Stage.tls_handshake]);
    expect(r.connection.tlsPeerSha256).toMatch(/^[0-9a-f]{64}$/);
    const report = await sendRequest(r.connection, { method: 'GET', path: '/status/200', headers: { host: 'x' } }, opts);
    expect(report).toMatchObject({ status: 200, body_complete: true });
    r.connection.close();
  });

  it('a proxy refusing the tunnel is proxy_tunnel at proxy_connect', async () => {
    const refusing = await startConnectProxy({ refuseWith: 403 });
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: plain.port }, { connectTimeoutMs: 2_000, proxy: { host: '127.0.0.1', port: refusing.port } });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.proxy_tunnel, stage: Stage.proxy_connect, diagnostic: 'proxy_status_403' });
    await refusing.close();
  });

  it('a proxy that cannot reach the origin answers 502: proxy_tunnel', async () => {
    const port = await freePort();
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port }, { connectTimeoutMs: 2_000, proxy: { host: '127.0.0.1', port: proxy.port } });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.proxy_tunnel, diagnostic: 'proxy_status_502' });
  });

  it('an unreachable proxy is a TCP failure', async () => {
    const port = await freePort();
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: plain.port }, { connectTimeoutMs: 2_000, proxy: { host: '127.0.0.1', port } });
    expect(r).toMatchObject({ ok: false, failure: SetupFailure.tcp_refused, stage: Stage.tcp_connect });
  });
});
