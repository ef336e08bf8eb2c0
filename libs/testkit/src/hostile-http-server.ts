import { readFileSync } from 'node:fs';
import { createServer as createNetServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { testCertificates } from './test-certificates.js';

/** A request the hostile server read completely. */
export interface HostileRequest {
  method: string;
  /** The request target as sent (path and query). */
  target: string;
  pathname: string;
  query: URLSearchParams;
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  rawHeaders: [string, string][];
  body: Buffer;
  /** 1-based number of the accepted socket it came on. */
  connection: number;
}

export interface HostileHttpServerOptions {
  tls?: boolean;
  /** Which certificate a TLS server presents (default `server`). */
  certificate?: 'server' | 'wrong-host' | 'self-signed';
  /** How many parsed requests `requests` keeps (default 100). */
  keepRequests?: number;
}

export interface HostileHttpServer {
  readonly port: number;
  readonly host: string;
  /** `http://127.0.0.1:<port>` or `https://...`. */
  readonly origin: string;
  /** The last parsed requests, oldest first. */
  readonly requests: readonly HostileRequest[];
  /** Sockets accepted so far. */
  readonly connections: number;
  /** Requests fully read (the "effects"), for one pathname or all. */
  effects(pathname?: string): number;
  close(): Promise<void>;
}

const CRLF = '\r\n';
const MAX_HEAD_BYTES = 64 * 1024;
const REASONS: Record<number, string> = {
  100: 'Continue', 103: 'Early Hints', 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content',
  301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 307: 'Temporary Redirect',
  308: 'Permanent Redirect', 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  408: 'Request Timeout', 409: 'Conflict', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

function head(status: number, headers: [string, string][]): string {
  const lines = [`HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}`, ...headers.map(([n, v]) => `${n}: ${v}`)];
  return lines.join(CRLF) + CRLF + CRLF;
}

/** Deterministic body bytes, so a test can check what it stored. */
export function hostileBodyBytes(length: number): Buffer {
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) out[i] = 97 + (i % 26);
  return out;
}

interface Parsed {
  request: Omit<HostileRequest, 'connection'>;
  consumed: number;
}

/** Parses one request with a Content-Length (or no) body; null when more bytes are needed. */
function parseRequest(buf: Buffer): Parsed | null | 'bad' {
  const end = buf.indexOf('\r\n\r\n');
  if (end < 0) return buf.length > MAX_HEAD_BYTES ? 'bad' : null;
  const lines = buf.subarray(0, end).toString('latin1').split(CRLF);
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(lines[0] ?? '');
  if (m === null) return 'bad';
  const rawHeaders: [string, string][] = [];
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) return 'bad';
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    rawHeaders.push([name, value]);
    const lower = name.toLowerCase();
    headers[lower] = headers[lower] === undefined ? value : `${headers[lower]}, ${value}`;
  }
  const length = Number(headers['content-length'] ?? '0');
  if (!Number.isInteger(length) || length < 0) return 'bad';
  if (buf.length < end + 4 + length) return null;
  const target = m[2] as string;
  const url = new URL(target, 'http://hostile.invalid');
  return {
    request: { method: m[1] as string, target, pathname: url.pathname, query: url.searchParams, headers, rawHeaders, body: Buffer.from(buf.subarray(end + 4, end + 4 + length)) },
    consumed: end + 4 + length,
  };
}

/**
 * An HTTP/1.1 server on real sockets that misbehaves on request, chosen by
 * the request path, so one server serves a whole test file:
 *
 * `/status/<code>[?retry-after=<v>]`, `/echo`, `/big/<bytes>`, `/chunked`,
 * `/close-after-request`, `/close-mid-headers`, `/close-mid-body`,
 * `/reset-mid-body`, `/chunked-broken`, `/chunked-unterminated`,
 * `/close-delimited`, `/close-delimited-reset`, `/interim-then-close[?hints=1]`,
 * `/proxy-status/<code>`, `/hang`, `/hang-body`, `/slow-headers[?delay-ms=]`,
 * `/slow-body[?delay-ms=]` (complete headers at once, the body `late` later),
 * `/keepalive-then-close[?delay-ms=]`, `/keepalive-then-reset` (the next
 * request on that socket is reset unread), `/redirect/<code>?to=<path>`.
 *
 * Anything else is a 404. A request counts as an effect once it was read in
 * full, before the behaviour is applied.
 */
export async function startHostileHttpServer(opts: HostileHttpServerOptions = {}): Promise<HostileHttpServer> {
  const keep = opts.keepRequests ?? 100;
  const requests: HostileRequest[] = [];
  const effectCounts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let connections = 0;
  let total = 0;

  const later = (ms: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const respond = (socket: Socket, req: HostileRequest): 'continue' | 'stop' | 'reset-next' => {
    const parts = req.pathname.split('/').filter((p) => p !== '');
    const [kind, arg] = parts;
    const send = (status: number, body: Buffer | string, extra: [string, string][] = []) => {
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      socket.write(head(status, [['Content-Length', String(bytes.length)], ['X-Request-Id', `hostile-${total}`], ...extra]));
      socket.write(bytes);
    };
    switch (kind) {
      case 'status': {
        const status = Number(arg ?? '200');
        const extra: [string, string][] = [['Content-Type', 'text/plain']];
        const retryAfter = req.query.get('retry-after');
        if (retryAfter !== null) extra.push(['Retry-After', retryAfter]);
        if (status === 204 || status === 304) {
          socket.write(head(status, [['X-Request-Id', `hostile-${total}`]]));
          return 'continue';
        }
        send(status, `status ${status}`, extra);
        return 'continue';
      }
      case 'echo': {
        const body = JSON.stringify({ method: req.method, target: req.target, headers: req.headers, body: req.body.toString('utf8') });
        send(200, body, [['Content-Type', 'application/json']]);
        return 'continue';
      }
      case 'big': {
        send(200, hostileBodyBytes(Number(arg ?? '0')), [['Content-Type', 'application/octet-stream']]);
        return 'continue';
      }
      case 'chunked': {
        socket.write(head(200, [['Transfer-Encoding', 'chunked'], ['Content-Type', 'text/plain']]));
        socket.write(`5${CRLF}hello${CRLF}7;ext=1${CRLF}, world${CRLF}0${CRLF}X-Trailer: done${CRLF}${CRLF}`);
        return 'continue';
      }
      case 'close-after-request':
        socket.end();
        return 'stop';
      case 'close-mid-headers':
        socket.write(`HTTP/1.1 200 OK${CRLF}Content-Type: text/pl`);
        socket.end();
        return 'stop';
      case 'close-mid-body':
        socket.write(head(200, [['Content-Length', '100'], ['Content-Type', 'text/plain']]) + 'only ten b');
        socket.end();
        return 'stop';
      case 'reset-mid-body':
        socket.write(head(200, [['Content-Length', '100'], ['Content-Type', 'text/plain']]) + 'only ten b', () => {
          later(20, () => socket.resetAndDestroy());
        });
        return 'stop';
      case 'chunked-broken':
        socket.write(head(200, [['Transfer-Encoding', 'chunked']]) + `5${CRLF}hello${CRLF}zz-not-hex${CRLF}more${CRLF}0${CRLF}${CRLF}`);
        socket.end();
        return 'stop';
      case 'chunked-unterminated':
        socket.write(head(200, [['Transfer-Encoding', 'chunked']]) + `5${CRLF}hello${CRLF}5${CRLF}world${CRLF}`);
        socket.end();
        return 'stop';
      case 'close-delimited':
        socket.write(head(200, [['Content-Type', 'text/plain'], ['Connection', 'close']]) + 'body until close');
        socket.end();
        return 'stop';
      case 'close-delimited-reset':
        socket.write(head(200, [['Content-Type', 'text/plain'], ['Connection', 'close']]) + 'body until reset', () => {
          later(20, () => socket.resetAndDestroy());
        });
        return 'stop';
      case 'interim-then-close': {
        let out = head(100, []);
        if (req.query.get('hints') === '1') out += head(103, [['Link', '</style.css>; rel=preload']]);
        socket.write(out);
        socket.end();
        return 'stop';
      }
      case 'proxy-status': {
        const status = Number(arg ?? '502');
        send(status, `proxy ${status}`, [
          ['Content-Type', 'text/plain'],
          ['Proxy-Status', 'proxy; error=http_response_incomplete; details="upstream closed"'],
        ]);
        return 'continue';
      }
      case 'hang':
        return 'stop';
      case 'hang-body':
        socket.write(head(200, [['Content-Length', '10']]) + 'a');
        return 'stop';
      case 'slow-body': {
        const delay = Number(req.query.get('delay-ms') ?? '60000');
        socket.write(head(200, [['Content-Length', '4'], ['Connection', 'close']]));
        later(delay, () => {
          if (!socket.destroyed) socket.end('late');
        });
        return 'stop';
      }
      case 'slow-headers': {
        const delay = Number(req.query.get('delay-ms') ?? '60000');
        socket.write(`HTTP/1.1 200 OK${CRLF}`);
        later(delay, () => {
          // This socket serves no further request: say so, so no client pools it.
          if (!socket.destroyed) socket.end(`Content-Length: 4${CRLF}Connection: close${CRLF}${CRLF}late`);
        });
        return 'stop';
      }
      case 'keepalive-then-close': {
        const delay = Number(req.query.get('delay-ms') ?? '0');
        const body = Buffer.from('kept alive, briefly');
        socket.write(head(200, [['Content-Length', String(body.length)], ['Connection', 'keep-alive'], ['Keep-Alive', 'timeout=60']]));
        // The close comes only once the response is flushed: the client holds an idle, now-dead socket.
        socket.write(body, () => later(delay, () => socket.end()));
        return 'stop';
      }
      case 'keepalive-then-reset': {
        // Like a server that dropped the idle socket: the next request on it is never read, only reset.
        send(200, 'kept alive, then gone', [['Connection', 'keep-alive']]);
        return 'reset-next';
      }
      case 'redirect': {
        const status = Number(arg ?? '302');
        send(status, '', [['Location', req.query.get('to') ?? '/status/200']]);
        return 'continue';
      }
      default:
        send(404, 'no such behaviour', [['Content-Type', 'text/plain']]);
        return 'continue';
    }
  };

  const onConnection = (socket: Socket) => {
    connections++;
    const connection = connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = Buffer.alloc(0);
    let stopped = false;
    let resetNext = false;
    socket.on('data', (chunk: Buffer) => {
      if (resetNext) {
        socket.resetAndDestroy();
        return;
      }
      if (stopped) return;
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const parsed = parseRequest(buf);
        if (parsed === null) return;
        if (parsed === 'bad') {
          socket.end(head(400, [['Content-Length', '0'], ['Connection', 'close']]));
          stopped = true;
          return;
        }
        buf = buf.subarray(parsed.consumed);
        const req: HostileRequest = { ...parsed.request, connection };
        total++;
        effectCounts.set(req.pathname, (effectCounts.get(req.pathname) ?? 0) + 1);
        requests.push(req);
        while (requests.length > keep) requests.shift();
        const next = respond(socket, req);
        if (next === 'stop') {
          stopped = true;
          return;
        }
        if (next === 'reset-next') {
          resetNext = buf.length === 0;
          if (!resetNext) socket.resetAndDestroy();
          return;
        }
      }
    });
  };

  let server: Server;
  if (opts.tls === true) {
    const certs = testCertificates();
    const pair = opts.certificate === 'wrong-host' ? certs.wrongHost : opts.certificate === 'self-signed' ? certs.selfSigned : certs.server;
    const tlsServer = createTlsServer({ cert: readFileSync(pair.cert), key: readFileSync(pair.key) }, onConnection);
    // A client that rejects the certificate aborts the handshake: not a server failure.
    tlsServer.on('tlsClientError', () => undefined);
    server = tlsServer;
  } else {
    server = createNetServer(onConnection);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: 0, host: '127.0.0.1' }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the hostile server has no TCP address');
  const port = address.port;
  const host = '127.0.0.1';

  return {
    port,
    host,
    origin: `${opts.tls === true ? 'https' : 'http'}://${host}:${port}`,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    effects(pathname?: string): number {
      return pathname === undefined ? total : (effectCounts.get(pathname) ?? 0);
    },
    close(): Promise<void> {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
