import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHostileHttpServer, type HostileHttpServer } from '@postern/testkit';
import { openConnection } from './connect.js';
import { ConnectionPool } from './connection-pool.js';
import type { HttpConnection } from './http-connection.js';

let server: HostileHttpServer;
beforeAll(async () => {
  server = await startHostileHttpServer();
});
afterAll(async () => {
  await server.close();
});

async function connect(): Promise<HttpConnection> {
  const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port: server.port }, { connectTimeoutMs: 1_000 });
  if (!r.ok) throw new Error(r.failure);
  return r.connection;
}

describe('ConnectionPool', () => {
  it('returns null for an origin it holds nothing for', () => {
    expect(new ConnectionPool().acquire('http://127.0.0.1:1')).toBeNull();
  });

  it('hands a released connection out once, most recent first', async () => {
    const pool = new ConnectionPool();
    const a = await connect();
    const b = await connect();
    pool.release(a);
    pool.release(b);
    expect(pool.size(a.origin)).toBe(2);
    expect(pool.acquire(a.origin)).toBe(b);
    expect(pool.acquire(a.origin)).toBe(a);
    expect(pool.acquire(a.origin)).toBeNull();
    pool.close();
    a.close();
    b.close();
  });

  it('closes a dead connection instead of pooling it', async () => {
    const pool = new ConnectionPool();
    const a = await connect();
    a.close();
    pool.release(a);
    expect(pool.size()).toBe(0);
  });

  it('discard closes and forgets a connection', async () => {
    const pool = new ConnectionPool();
    const a = await connect();
    pool.release(a);
    pool.discard(a);
    expect(a.alive).toBe(false);
    expect(pool.size(a.origin)).toBe(0);
  });

  it('keeps at most maxIdlePerOrigin idle connections, closing the oldest', async () => {
    const pool = new ConnectionPool({ maxIdlePerOrigin: 1 });
    const a = await connect();
    const b = await connect();
    pool.release(a);
    pool.release(b);
    expect(pool.size(a.origin)).toBe(1);
    expect(a.alive).toBe(false);
    expect(pool.acquire(a.origin)).toBe(b);
    b.close();
  });

  it('a connection that receives unsolicited bytes while idle is not alive', async () => {
    const { createServer } = await import('node:net');
    const chatty = createServer((s) => setTimeout(() => s.write('HTTP/1.1 200 OK\r\n'), 20));
    await new Promise<void>((r) => chatty.listen(0, '127.0.0.1', r));
    const port = (chatty.address() as { port: number }).port;
    const r = await openConnection({ scheme: 'http', host: '127.0.0.1', port }, { connectTimeoutMs: 1_000 });
    if (!r.ok) throw new Error(r.failure);
    const deadline = Date.now() + 1_000;
    while (r.connection.alive && Date.now() < deadline) await new Promise((res) => setTimeout(res, 5));
    expect(r.connection.alive).toBe(false);
    const pool = new ConnectionPool();
    pool.release(r.connection);
    expect(pool.acquire(r.connection.origin)).toBeNull();
    await new Promise<void>((res) => chatty.close(() => res()));
  });
});
