import { isIP, type Socket } from 'node:net';
import { connect as tlsConnect, rootCertificates, type TLSSocket } from 'node:tls';
import { SetupFailure, Stage } from '@postern/contract';
import { ConnectAbortedError } from './errors.js';
import { HttpConnection } from './http-connection.js';
import { type AbortErrorFactory, errorCode, resolveAndConnect, SetupStageError, type StageTiming, timedStage, withDeadline } from '@postern/transport-net';
import type { ConnectOptions, ConnectResult, HttpTarget } from './types.js';

/** `scheme://host:port`, the key connections are pooled under. */
export function originOf(target: HttpTarget): string {
  const host = isIP(target.host) === 6 ? `[${target.host}]` : target.host;
  return `${target.scheme}://${host}:${target.port}`;
}

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

const abortError: AbortErrorFactory = (cause) => new ConnectAbortedError({ cause });

function tlsFailure(err: unknown): SetupStageError {
  const code = errorCode(err);
  const failure = CERT_REJECTED_CODES.has(code) ? SetupFailure.tls_cert_rejected : SetupFailure.tls_handshake;
  return new SetupStageError(failure, Stage.tls_handshake, code);
}

function tlsHandshake(tcp: Socket, host: string, ca: string[] | undefined, deadline: number, signal: AbortSignal | undefined): Promise<TLSSocket> {
  return withDeadline<TLSSocket>(deadline, signal, abortError, () => new SetupStageError(SetupFailure.tls_handshake, Stage.tls_handshake, 'ETIMEDOUT'), (settle) => {
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
  const fail = (diagnostic: string) => new SetupStageError(SetupFailure.proxy_tunnel, Stage.proxy_connect, diagnostic);
  return withDeadline<Socket>(deadline, signal, abortError, () => fail('ETIMEDOUT'), (settle) => {
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
      settle.reject(fail(errorCode(err)));
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
  const fail = (e: SetupStageError): Failed => ({ ok: false, failure: e.failure, stage: e.stage, diagnostic: e.diagnostic, stages });
  if (opts.signal?.aborted === true) throw new ConnectAbortedError({ cause: opts.signal.reason });
  try {
    // With a proxy, DNS and TCP are for the proxy; the proxy resolves the target.
    const first = opts.proxy ?? { host: target.host, port: target.port };
    let tcp = await resolveAndConnect(first, { deadline, lookup: opts.lookup, signal: opts.signal }, stages, abortError);
    if (opts.proxy !== undefined) {
      const raw = tcp;
      tcp = await timedStage(stages, Stage.proxy_connect, () => proxyTunnel(raw, target, deadline, opts.signal));
    }
    let socket: Socket | TLSSocket = tcp;
    let peer: string | undefined;
    if (target.scheme === 'https') {
      const tls = await timedStage(stages, Stage.tls_handshake, () => tlsHandshake(tcp, target.host, opts.ca, deadline, opts.signal));
      peer = tls.getPeerCertificate().fingerprint256?.replaceAll(':', '').toLowerCase();
      socket = tls;
    }
    return { ok: true, connection: new HttpConnection(originOf(target), socket, peer), stages };
  } catch (err) {
    if (err instanceof SetupStageError) return fail(err);
    throw err;
  }
}
