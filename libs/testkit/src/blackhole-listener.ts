import { spawn, type ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';

/**
 * A port on 127.0.0.1 where TCP connects time out: a listener in a child
 * process that never accepts, whose accept queue is filled first, so the
 * kernel drops every further SYN and the connecting side waits in vain.
 */
export interface BlackholeListener {
  readonly port: number;
  close(): Promise<void>;
}

// Listens with the smallest backlog, reports its port, then blocks its event loop for good.
const CHILD = `
const server = require('node:net').createServer();
server.listen({ host: '127.0.0.1', port: 0, backlog: 1 }, () => {
  process.stdout.write(String(server.address().port) + '\\n', () => {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  });
});`;

function fillOne(port: number): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      // This one is already stuck: the queue is full.
      socket.destroy();
      resolve(null);
    }, 300);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(null);
    });
  });
}

export async function startBlackholeListener(): Promise<BlackholeListener> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the blackhole listener did not start within 5 s')), 5000);
    child.stdout!.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(Number(chunk.toString().trim()));
    });
    child.once('exit', () => reject(new Error('the blackhole listener exited')));
  });
  const fillers: Socket[] = [];
  // The accept queue holds backlog + 1 connections; a few more than that is certain to fill it.
  for (let i = 0; i < 8; i++) {
    const socket = await fillOne(port);
    if (socket === null) break;
    fillers.push(socket);
  }
  return {
    port,
    close: async () => {
      for (const socket of fillers) socket.destroy();
      child.kill('SIGKILL');
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once('exit', resolve)));
    },
  };
}
