import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.mjs';
import { parseNatsAddress, probeNats, splitNatsUrls } from './nats-probe.mjs';
import { redactUrl } from './redact-url.mjs';

describe('NATS addresses', () => {
  it('parses URLs with and without scheme, port and credentials', () => {
    expect(parseNatsAddress('nats://u:p@10.0.0.5:4333')).toEqual({ host: '10.0.0.5', port: 4333 });
    expect(parseNatsAddress('localhost')).toEqual({ host: 'localhost', port: 4222 });
    expect(parseNatsAddress('tls://[::1]:7422')).toEqual({ host: '::1', port: 7422 });
    expect(splitNatsUrls(' nats://a:1, nats://b:2 ,')).toEqual(['nats://a:1', 'nats://b:2']);
  });

  it('hides credentials in messages', () => {
    expect(redactUrl('nats://svc:hunter2@a:4222,nats://b:4222, tls://t0ken@c:1')).toBe('nats://***@a:4222,nats://b:4222, tls://***@c:1');
  });
});

describe('probeNats', () => {
  it('reports a refused port', async () => {
    expect(await probeNats({ host: '127.0.0.1', port: await freePort() })).toEqual({ reachable: false, reason: 'refused' });
  });

  it('tells a server that is not NATS apart', async () => {
    const server = createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      expect(await probeNats({ host: '127.0.0.1', port: server.address().port })).toEqual({ reachable: false, reason: 'not-nats' });
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it('times out on a server that says nothing', async () => {
    const sockets = [];
    const server = createServer((socket) => sockets.push(socket));
    await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      expect(await probeNats({ host: '127.0.0.1', port: server.address().port }, 200)).toEqual({ reachable: false, reason: 'timeout' });
    } finally {
      sockets.forEach((socket) => socket.destroy());
      await new Promise((done) => server.close(done));
    }
  });

  it('reads the INFO line of a NATS server', async () => {
    const server = createServer((socket) => socket.write('INFO {"server_id":"x","jetstream":true,"max_payload":1048576}\r\n'));
    await new Promise((ready) => server.listen(0, '127.0.0.1', ready));
    try {
      const probe = await probeNats({ host: '127.0.0.1', port: server.address().port });
      expect(probe).toEqual({ reachable: true, info: { server_id: 'x', jetstream: true, max_payload: 1048576 } });
    } finally {
      server.closeAllConnections?.();
      await new Promise((done) => server.close(done));
    }
  });
});
