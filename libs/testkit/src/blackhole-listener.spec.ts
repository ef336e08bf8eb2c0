import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startBlackholeListener } from './blackhole-listener.js';

describe('the blackhole listener', () => {
  it('lets a TCP connect hang until the caller gives up', async () => {
    const hole = await startBlackholeListener();
    try {
      const outcome = await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: hole.port });
        const timer = setTimeout(() => {
          socket.destroy();
          resolve('timed out');
        }, 700);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.destroy();
          resolve('connected');
        });
        socket.once('error', (err) => {
          clearTimeout(timer);
          resolve(`error ${(err as NodeJS.ErrnoException).code}`);
        });
      });
      expect(outcome).toBe('timed out');
    } finally {
      await hole.close();
    }
  });
});
