import { createServer } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { freePort } from './free-port.js';
import { NatsServerNotFoundError } from './errors.js';
import { findNatsServerBinary, startNatsServer, type NatsServerHandle } from './nats-server.js';
import { existsSync } from 'node:fs';

describe('freePort', () => {
  it('returns a loopback port that can be bound', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(port).toBeLessThan(65536);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

describe('startNatsServer', () => {
  let server: NatsServerHandle | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('starts with JetStream, keeps data across restart, and cleans up on stop', { timeout: 30_000 }, async () => {
    server = await startNatsServer();
    expect(server.url).toBe(`nats://127.0.0.1:${server.port}`);
    expect(existsSync(server.storeDir)).toBe(true);

    let nc = await connect({ servers: server.url, reconnect: false });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'KEEP', subjects: ['keep.>'] });
    await jetstream(nc).publish('keep.one', 'hello');
    await nc.close();

    await server.restart();

    nc = await connect({ servers: server.url, reconnect: false });
    const info = await (await jetstreamManager(nc)).streams.info('KEEP');
    expect(info.state.messages).toBe(1);
    await nc.close();

    const dir = server.storeDir;
    await server.stop();
    expect(existsSync(dir)).toBe(false);
    await expect(connect({ servers: server.url, reconnect: false, timeout: 1_000 })).rejects.toThrow();
    server = undefined;
  });

  it('runs without JetStream when asked', { timeout: 15_000 }, async () => {
    const plain = await startNatsServer({ jetstream: false });
    try {
      const nc = await connect({ servers: plain.url, reconnect: false });
      try {
        await expect(jetstreamManager(nc, { timeout: 1_000 })).rejects.toThrow();
      } finally {
        await nc.close();
      }
    } finally {
      await plain.stop();
    }
  });

  it('reports a missing binary with what to install', () => {
    const saved = { bin: process.env['NATS_SERVER_BIN'], path: process.env['PATH'] };
    process.env['NATS_SERVER_BIN'] = '/nonexistent/nats-server';
    process.env['PATH'] = '/nonexistent';
    try {
      expect(() => findNatsServerBinary([])).toThrow(NatsServerNotFoundError);
      expect(() => findNatsServerBinary([])).toThrow(/Install nats-server/);
    } finally {
      if (saved.bin === undefined) delete process.env['NATS_SERVER_BIN'];
      else process.env['NATS_SERVER_BIN'] = saved.bin;
      process.env['PATH'] = saved.path;
    }
  });
});
