import { promises as dns } from 'node:dns';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates, type TLSSocket } from 'node:tls';
import { SetupFailure, Stage } from '@postern/contract';
import { ConnectAbortedError } from './errors.js';
import { HttpConnection } from './http-connection.js';
import type { ConnectOptions, ConnectResult, HttpTarget, Lookup, ResolvedAddress, StageTiming } from './types.js';

/** `scheme://host:port`, the key connections are pooled under. */
export function originOf(target: HttpTarget): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return `${target.scheme}://${host}:${target.port}`;
}

const defaultLookup: Lookup = async (host) => dns.lookup(host, { all: true, verbatim: true });

/** OpenSSL verification codes that mean the peer's certificate was not accepted. */
const CERT_REJECTED_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_CHAIN_TOO_LONG',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'PATH_LENGTH_EXCEEDED',
]);

type Failed = Extract<ConnectResult, { ok: false }>;

/** Internal: carries a set-up failure to the one place that reports it. */
class SetupError extends Error {
  override name = 'SetupError';
  constructor(
    readonly failure: SetupFailure,
    readonly stage: Stage,
    readonly diagnostic: string,
  ) {
    super(diagnostic);
  }
}

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (e !== null && typeof e === 'object' && typeof e.code === 'string') return e.code;
  if (e !== null && typeof e === 'object' && typeof e.name === 'string') return e.name;
  return 'UNKNOWN';
}

function dnsFailure(err: unknown): SetupError {
  const code = codeOf(err);
  // NXDOMAIN and "no data" are answers; everything else may pass with time.
  const failure = code === 'ENOTFOUND' || code === 'ENODATA' ? SetupFailure.dns_nxdomain : SetupFailure.dns_temporary;
  return new SetupError(failure, Stage.dns, code);
}

function tcpFailure(code: string): SetupError {
  switch (code) {
    case 'ECONNREFUSED':
      return new SetupError(SetupFailure.tcp_refused, Stage.tcp_connect, code);
    case 'ETIMEDOUT':
      return new SetupError(SetupFailure.tcp_timeout, Stage.tcp_connect, code);
    default:
      return new SetupError(SetupFailure.tcp_unreachable, Stage.tcp_connect, code);
  }
}

function tlsFailure(err: unknown): SetupError {
  const code = codeOf(err);
  const failure = CERT_REJECTED_CODES.has(code) ? SetupFailure.tls_cert_rejected : SetupFailure.tls_handshake;
  return new SetupError(failure, Stage.tls_handshake, code);
}

/** Runs one stage, records its timing, and converts a throw into a recorded failure. */
async function stage<T>(stages: StageTiming[], name: Stage, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const t0 = performance.now();
  try {
    const value = await run();
    stages.push({ stage: name, started_at_ms: started, duration_ms: performance.now() - t0, ok: true });
    return value;
  } catch (err) {
    stages.push({ stage: name, started_at_ms: started, duration_ms: performance.now() - t0, ok: false });
    throw err;
  }
}

function withDeadline<T>(deadline: number, signal: AbortSignal | undefined, onTimeout: () => Error, start: (settle: { resolve(v: T): void; reject(e: unknown): void }) => () => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let cleanup: () => void = () => undefined;
    const finish = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => {
      cleanup();
      finish(() => reject(new ConnectAbortedError({ cause: signal?.reason })));
    };
    const timer = setTimeout(() => {
      cleanup();
      finish(() => reject(onTimeout()));
    }, Math.max(0, deadline - Date.now()));
    signal?.addEventListener('abort', onAbort, { once: true });
    cleanup = start({ resolve: (v) => finish(() => resolve(v)), reject: (e) => finish(() => reject(e)) });
  });
}

function tcpConnect(address: ResolvedAddress, port: number, deadline: number, signal: AbortSignal | undefined): Promise<Socket> {
  return withDeadline<Socket>(deadline, signal, () => tcpFailure('ETIMEDOUT'), (settle) => {
    const socket = netConnect({ host: address.address, port, family: address.family });
    socket.setNoDelay(true);
    const onError = (err: unknown) => {
      socket.destroy();
      settle.reject(tcpFailure(codeOf(err)));
    };
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      settle.resolve(socket);
    });
    return () => socket.destroy();
  });
}

function tlsHandshake(tcp: Socket, host: string, ca: string[] | undefined, deadline: number, signal: AbortSignal | undefined): Promise<TLSSocket> {
  return withDeadline<TLSSocket>(deadline, signal, () => new SetupError(SetupFailure.tls_handshake, Stage.tls_handshake, 'ETIMEDOUT'), (settle) => {
    const socket = tlsConnect({
      socket: tcp,
      host,
      servername: isIP(host) === 0 ? host : undefined,
      ca: ca !== undefined && ca.length > 0 ? [...rootCertificates, ...ca] : undefined,
      rejectUnauthorized: true,
      ALPNProtocols: ['http/1.1'],
    });
    const onError = (err: unknown) => {
      socket.destroy();
      settle.reject(tlsFailure(err));
    };
    socket.once('error', onError);
    socket.once('secureConnect', () => {
      socket.off('error', onError);
      // rejectUnauthorized already failed the handshake otherwise; checked again on purpose.
      if (!socket.authorized) {
        socket.destroy();
        settle.reject(tlsFailure({ code: String(socket.authorizationError ?? 'UNAUTHORIZED') }));
        return;
      }
      settle.resolve(socket);
    });
    return () => {
      socket.destroy();
      tcp.destroy();
    };
  });
}

const MAX_PROXY_HEAD_BYTES = 16 * 1024;

/** Opens a CONNECT tunnel on `socket`; any answer but 2xx, or a close, is `proxy_tunnel`. */
function proxyTunnel(socket: Socket, target: HttpTarget, deadline: number, signal: AbortSignal | undefined): Promise<Socket> {
  const fail = (diagnostic: string) => new SetupError(SetupFailure.proxy_tunnel, Stage.proxy_connect, diagnostic);
  return withDeadline<Socket>(deadline, signal, () => fail('ETIMEDOUT'), (settle) => {
    let buf = Buffer.alloc(0);
    const cleanup = () => {
      socket.off('data', onData);
      socket.off('error', onError);
      socket.off('end', onEnd);
    };
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buf.length > MAX_PROXY_HEAD_BYTES) {
          cleanup();
          socket.destroy();
          settle.reject(fail('proxy_head_too_large'));
        }
        return;
      }
      cleanup();
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(buf.toString('latin1', 0, end));
      const status = m === null ? 0 : Number(m[1]);
      // Bytes after the proxy's answer would be the origin speaking unasked.
      if (status < 200 || status > 299 || buf.length > end + 4) {
        socket.destroy();
        settle.reject(fail(m === null ? 'proxy_bad_response' : `proxy_status_${status}`));
        return;
      }
      socket.pause();
      settle.resolve(socket);
    };
    const onError = (err: unknown) => {
      cleanup();
      socket.destroy();
      settle.reject(fail(codeOf(err)));
    };
    const onEnd = () => {
      cleanup();
      socket.destroy();
      settle.reject(fail('proxy_closed'));
    };
    socket.on('data', onData);
    socket.once('error', onError);
    socket.once('end', onEnd);
    const authority = `${isIP(target.host) === 6 ? `[${target.host}]` : target.host}:${target.port}`;
    socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    return () => socket.destroy();
  });
}

/**
 * Sets up a connection stage by stage (DNS, TCP, TLS) and reports each. A
 * failure here is before the dispatch boundary: nothing was sent.
 */
export async function openConnection(target: HttpTarget, opts: ConnectOptions): Promise<ConnectResult> {
  const stages: StageTiming[] = [];
  const deadline = Date.now() + opts.connectTimeoutMs;
  const fail = (e: SetupError): Failed => ({ ok: false, failure: e.failure, stage: e.stage, diagnostic: e.diagnostic, stages });
  if (opts.signal?.aborted === true) throw new ConnectAbortedError({ cause: opts.signal.reason });
  try {
    // With a proxy, DNS and TCP are for the proxy; the proxy resolves the target.
    const first = opts.proxy ?? { host: target.host, port: target.port };
    let addresses: ResolvedAddress[];
    const family = isIP(first.host);
    if (family !== 0) {
      addresses = [{ address: first.host, family }];
    } else {
      const lookup = opts.lookup ?? defaultLookup;
      addresses = await stage(stages, Stage.dns, () =>
        withDeadline<ResolvedAddress[]>(deadline, opts.signal, () => new SetupError(SetupFailure.dns_temporary, Stage.dns, 'ETIMEOUT'), (settle) => {
          lookup(first.host).then(settle.resolve, (err: unknown) => settle.reject(dnsFailure(err)));
          return () => undefined;
        }),
      );
      if (addresses.length === 0) throw new SetupError(SetupFailure.dns_nxdomain, Stage.dns, 'ENODATA');
    }
    let tcp = await stage(stages, Stage.tcp_connect, async () => {
      let last: unknown;
      for (const address of addresses) {
        try {
          return await tcpConnect(address, first.port, deadline, opts.signal);
        } catch (err) {
          if (!(err instanceof SetupError) || err.failure === SetupFailure.tcp_timeout) throw err;
          last = err;
        }
      }
      throw last;
    });
    if (opts.proxy !== undefined) {
      const raw = tcp;
      tcp = await stage(stages, Stage.proxy_connect, () => proxyTunnel(raw, target, deadline, opts.signal));
    }
    let socket: Socket | TLSSocket = tcp;
    let peer: string | undefined;
    if (target.scheme === 'https') {
      const tls = await stage(stages, Stage.tls_handshake, () => tlsHandshake(tcp, target.host, opts.ca, deadline, opts.signal));
      peer = tls.getPeerCertificate().fingerprint256?.replaceAll(':', '').toLowerCase();
      socket = tls;
    }
    return { ok: true, connection: new HttpConnection(originOf(target), socket, peer), stages };
  } catch (err) {
    if (err instanceof SetupError) return fail(err);
    throw err;
  }
}
