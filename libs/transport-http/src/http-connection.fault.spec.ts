import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileHttpServer, type HostileHttpServer } from '@postern/testkit';
import { openConnection } from './connect.js';
import { sendRequest } from './exchange.js';

let server: HostileHttpServer;
beforeAll(async () => {
  server = await startHostileHttpServer();
});
afterAll(async () => {
  await server.close();
});

const opts = { responseHeadersTimeoutMs: 2_000, bodyTimeoutMs: 2_000, responseBodyBytes: 1000, responseReadBytes: 1000, onBodyChunk: () => undefined };

describe('HttpConnection', () => {
  it('is new before its first exchange and reused after it', async () => {
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: server.port }, { connectTimeoutMs: 1_000 });
    if (!r.ok) throw new Error(r.failure);
    expect(r.connection.reused).toBe(false);
    const a = await sendRequest(r.connection, { method: 'GET', path: '/status/200', headers: { host: 'x' } }, opts);
    expect(a.connection_reused).toBe(false);
    expect(r.connection.reused).toBe(true);
    const b = await sendRequest(r.connection, { method: 'GET', path: '/status/200', headers: { host: 'x' } }, opts);
    expect(b.connection_reused).toBe(true);
    expect(b.connection_id).toBe(a.connection_id);
    r.connection.close();
  });

  it('never lets undici open a second, unrecorded connection', async () => {
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: server.port }, { connectTimeoutMs: 1_000 });
    if (!r.ok) throw new Error(r.failure);
    const first = await sendRequest(r.connection, { method: 'GET', path: '/keepalive-then-close', headers: { host: 'x' } }, opts);
    expect(first.body_complete).toBe(true);
    const deadline = Date.now() + 2_000;
    while (r.connection.alive && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    const connectionsBefore = server.connections;
    const effectsBefore = server.effects();
    // Straight to undici, past every Postern check: it must fail, not reconnect.
    const err = await r.connection.client.request({ method: 'GET', path: '/status/200' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect((err as { code?: string } | null)?.code).toBe('POSTERN_CONNECTION_SPENT');
    expect(server.connections).toBe(connectionsBefore);
    expect(server.effects()).toBe(effectsBefore);
    r.connection.close();
  });

  it('close() makes it not alive and is idempotent', async () => {
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: server.port }, { connectTimeoutMs: 1_000 });
    if (!r.ok) throw new Error(r.failure);
    r.connection.close();
    r.connection.close();
    expect(r.connection.alive).toBe(false);
  });
});
