// Asks a NATS server who it is without a client library: connect, read the
// INFO line the server sends first, hang up.
import { connect } from 'node:net';

/** `nats://user:pass@host:port` (or a bare `host:port`) to `{ host, port }`; credentials are dropped. */
export function parseNatsAddress(url) {
  const text = url.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `nats://${text}`;
  const parsed = new URL(withScheme);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: parsed.port ? Number(parsed.port) : 4222 };
}

/** The comma-separated NATS_URL as a list of URLs. */
export function splitNatsUrls(value) {
  return value.split(',').map((part) => part.trim()).filter(Boolean);
}

/**
 * Resolves `{ reachable: true, info }` with the parsed INFO JSON, or
 * `{ reachable: false, reason }`; `reason` is `refused`, `timeout`,
 * `not-nats` or the socket error code. Never rejects.
 */
export function probeNats({ host, port }, timeoutMs = 3000) {
  return new Promise((resolvePromise) => {
    const socket = connect({ host, port });
    let buffered = '';
    let settled = false;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolvePromise(result);
    };
    const timer = setTimeout(() => finish({ reachable: false, reason: 'timeout' }), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\r\n');
      if (end === -1 && buffered.length < 64 * 1024) return;
      const line = end === -1 ? buffered : buffered.slice(0, end);
      if (!line.startsWith('INFO ')) return finish({ reachable: false, reason: 'not-nats' });
      try {
        finish({ reachable: true, info: JSON.parse(line.slice(5)) });
      } catch {
        finish({ reachable: false, reason: 'not-nats' });
      }
    });
    socket.on('error', (err) => finish({ reachable: false, reason: err.code === 'ECONNREFUSED' ? 'refused' : (err.code ?? err.message) }));
    socket.on('close', () => finish({ reachable: false, reason: 'not-nats' }));
  });
}
