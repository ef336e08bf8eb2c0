// Whether something accepts TCP connections at host:port within the timeout.
import { connect } from 'node:net';

export function tcpReachable(host, port, timeoutMs = 1_000) {
  return new Promise((resolvePromise) => {
    const socket = connect({ host, port });
    const finish = (ok) => {
      clearTimeout(timer);
      socket.destroy();
      resolvePromise(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}
