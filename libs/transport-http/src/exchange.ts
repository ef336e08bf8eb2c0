import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { Dispatcher } from 'undici';
import type { HttpConnection } from './http-connection.js';
import { ResponseFramingParser } from './response-framing.js';
import type { BrokerTimeout, ExchangeEnd, ExchangeOptions, HttpExchangeReport, HttpRequest } from './types.js';

/**
 * undici announces, synchronously and per socket, that it is about to write
 * a request's head. Only used as a flag: DISPATCH_STARTED is already durable
 * before `sendRequest` is called.
 */
const headSentBySocket = new WeakMap<object, () => void>();
subscribe('undici:client:sendHeaders', (message) => {
  const socket = (message as { socket?: object }).socket;
  if (socket !== undefined) headSentBySocket.get(socket)?.();
});

type StopReason = { kind: 'timeout'; which: BrokerTimeout } | { kind: 'aborted'; diagnostic: string } | { kind: 'error'; diagnostic: string };

/** Grace for undici to report the error after Postern destroyed the socket. */
const SETTLE_GRACE_MS = 1_000;

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null;
  if (e !== null && typeof e === 'object' && typeof e.code === 'string') return e.code;
  if (e !== null && typeof e === 'object' && typeof e.name === 'string') return e.name;
  return 'UNKNOWN';
}

function rawHeaderPairs(raw: Buffer[] | string[] | null | undefined): [string, string][] {
  const out: [string, string][] = [];
  if (raw === null || raw === undefined) return out;
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([String(raw[i]), String(raw[i + 1])]);
  return out;
}

/**
 * Sends one request on an owned connection and reports raw facts. The caller
 * has already made DISPATCH_STARTED durable. Nothing here classifies or
 * retries; framing is decided by Postern's own parser over the bytes undici
 * read, and undici's opinion can only make the answer more conservative.
 */
export function sendRequest(conn: HttpConnection, req: HttpRequest, opts: ExchangeOptions): Promise<HttpExchangeReport> {
  const report: HttpExchangeReport = {
    connection_id: conn.id,
    connection_reused: conn.reused,
    write_failed: false,
    request_headers_sent: false,
    request_complete: false,
    interim_statuses: [],
    response_started: false,
    status: null,
    headers: null,
    headers_complete: false,
    framing: null,
    body_complete: false,
    body_bytes_read: 0,
    body_bytes_passed: 0,
    body_over_limit: false,
    broker_timeout: null,
    ended_by: 'error',
    keep_alive: false,
  };
  if (!conn.alive) {
    // Known dead before anything was handed over: nothing went out on it.
    report.diagnostic = 'connection_not_alive';
    return Promise.resolve(report);
  }

  if (opts.signal?.aborted === true) {
    report.ended_by = 'aborted';
    report.diagnostic = 'caller_aborted';
    return Promise.resolve(report);
  }

  const parser = new ResponseFramingParser({ method: req.method });
  let undiciCompleted = false;
  let endKind: 'fin' | 'reset' | 'error' | undefined;
  let endDiagnostic: string | undefined;
  let undiciError: string | undefined;
  let stopped: StopReason | null = null;
  let abortRequest: ((err: Error) => void) | null = null;
  let settled = false;
  let sinkChain: Promise<void> = Promise.resolve();

  return new Promise<HttpExchangeReport>((resolve) => {
    const timers: NodeJS.Timeout[] = [];
    let headersTimer: NodeJS.Timeout | undefined;
    const onSignal = () => stop({ kind: 'aborted', diagnostic: 'caller_aborted' });

    const finish = () => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      opts.signal?.removeEventListener('abort', onSignal);
      headSentBySocket.delete(conn.socket as Socket);
      // Let queued body writes land before the caller looks at the result.
      void sinkChain.then(
        () => resolve(buildReport()),
        (err: unknown) => {
          stopped ??= { kind: 'error', diagnostic: `body_sink_failed:${codeOf(err)}` };
          resolve(buildReport());
        },
      );
    };

    const buildReport = (): HttpExchangeReport => {
      report.interim_statuses = [...parser.interimStatuses];
      report.status = parser.status;
      report.headers = parser.headers === null ? null : parser.headers.map(([n, v]) => [n, v] as [string, string]);
      report.headers_complete = parser.headersComplete;
      report.response_started = parser.finalBytesSeen || parser.status !== null;
      report.framing = parser.framing;
      report.body_complete = parser.bodyComplete && undiciCompleted && stopped === null;
      if (report.body_complete) report.ended_by = 'complete';
      else if (stopped !== null) report.ended_by = stopped.kind === 'timeout' ? 'timeout' : stopped.kind;
      else report.ended_by = endKind ?? 'error';
      if (stopped?.kind === 'timeout') report.broker_timeout = stopped.which;
      const diagnostic = stopped !== null && stopped.kind !== 'timeout' ? stopped.diagnostic : (parser.error ?? undiciError ?? endDiagnostic);
      if (diagnostic !== undefined && !report.body_complete) report.diagnostic = diagnostic;
      else if (parser.error !== null) report.diagnostic = parser.error;
      conn.endExchange();
      report.keep_alive = report.body_complete && parser.keepAlive && conn.alive;
      return report;
    };

    const stop = (reason: StopReason) => {
      if (stopped !== null || settled) return;
      stopped = reason;
      const err = new Error(reason.kind === 'timeout' ? `broker_timeout:${reason.which}` : reason.diagnostic);
      if (abortRequest !== null) abortRequest(err);
      // The socket goes too: a half-read response leaves it unusable.
      conn.socket.destroy();
      timers.push(setTimeout(finish, SETTLE_GRACE_MS));
    };

    conn.beginExchange({
      data: (chunk) => parser.push(chunk),
      end: (how, diagnostic) => {
        endKind ??= how;
        endDiagnostic ??= diagnostic;
        parser.end(how === 'fin' ? 'fin' : 'reset');
      },
    });
    headSentBySocket.set(conn.socket as Socket, () => {
      report.request_headers_sent = true;
    });
    headersTimer = setTimeout(() => stop({ kind: 'timeout', which: 'response_headers' }), opts.responseHeadersTimeoutMs);
    timers.push(headersTimer);
    if (opts.signal !== undefined) {
      if (opts.signal.aborted) {
        stop({ kind: 'aborted', diagnostic: 'caller_aborted' });
      } else opts.signal.addEventListener('abort', onSignal, { once: true });
    }

    const handler = {
      onConnect(abort: (err?: Error) => void) {
        abortRequest = abort;
      },
      onRequestSent() {
        report.request_complete = true;
        opts.onRequestSent?.({ request_headers_sent: report.request_headers_sent, request_complete: true });
      },
      onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
        if (statusCode < 200) return true;
        // Headers done: the body gets its own time bound from here.
        clearTimeout(headersTimer);
        timers.push(setTimeout(() => stop({ kind: 'timeout', which: 'body' }), opts.bodyTimeoutMs));
        resumeUndici = resume;
        opts.onResponseStarted?.(statusCode, parser.headers ?? rawHeaderPairs(rawHeaders));
        return true;
      },
      onData(chunk: Buffer): boolean {
        if (stopped !== null) return false;
        const before = report.body_bytes_read;
        report.body_bytes_read += chunk.length;
        if (report.body_bytes_read > opts.responseBodyBytes) report.body_over_limit = true;
        const room = Math.max(0, opts.responseBodyBytes - before);
        if (room > 0) {
          const slice = chunk.length <= room ? chunk : chunk.subarray(0, room);
          report.body_bytes_passed += slice.length;
          const copy = new Uint8Array(slice);
          let pending: Promise<void> | void;
          try {
            pending = opts.onBodyChunk(copy);
          } catch (err) {
            stop({ kind: 'error', diagnostic: `body_sink_failed:${codeOf(err)}` });
            return false;
          }
          if (pending !== undefined && typeof (pending as Promise<void>).then === 'function') {
            // Back-pressure: undici stops reading the socket until the sink caught up.
            sinkChain = sinkChain.then(() => pending as Promise<void>);
            sinkChain.then(
              () => resumeUndici?.(),
              (err: unknown) => stop({ kind: 'error', diagnostic: `body_sink_failed:${codeOf(err)}` }),
            );
            if (report.body_bytes_read > opts.responseReadBytes) {
              stop({ kind: 'aborted', diagnostic: 'response_read_limit' });
            }
            return false;
          }
        }
        if (report.body_bytes_read > opts.responseReadBytes) {
          stop({ kind: 'aborted', diagnostic: 'response_read_limit' });
          return false;
        }
        return true;
      },
      onComplete() {
        undiciCompleted = true;
        finish();
      },
      onError(err: Error) {
        undiciError = codeOf(err);
        if (!report.request_complete && stopped === null) report.write_failed = true;
        finish();
      },
      onUpgrade() {
        undiciError = 'unexpected_upgrade';
      },
      onBodySent() {},
      onResponseStarted() {},
    };
    let resumeUndici: (() => void) | null = null;

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = value;
    try {
      conn.client.dispatch(
        {
          // The TLS handshake is already done; undici reconnects on https when
          // a request's servername differs from the last one, so all carry one.
          servername: conn.id,
          method: req.method as Dispatcher.HttpMethod,
          path: req.path,
          headers,
          body: req.body !== undefined ? Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength) : undefined,
          // Postern decides retries and redirects; undici must never re-send.
          idempotent: false,
          blocking: true,
          reset: false,
        } as Dispatcher.DispatchOptions,
        handler as unknown as Dispatcher.DispatchHandler,
      );
    } catch (err) {
      undiciError = codeOf(err);
      report.write_failed = true;
      finish();
    }
  });
}
