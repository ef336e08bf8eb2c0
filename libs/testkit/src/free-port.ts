import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on the loopback interface. The port is
 * released before it is returned, so a racing process could take it; callers
 * that start a server on it must tolerate (and report) a bind failure.
 */
export function freePort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1', exclusive: true }, () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a loopback listener'));
        return;
      }
      const { port } = address;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
