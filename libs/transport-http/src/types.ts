import type { SetupFailure, Stage } from '@postern/contract';
import type { Lookup, StageTiming } from '@postern/transport-net';
import type { HttpConnection } from './http-connection.js';

/** Where a connection goes. `host` is a DNS name or an IP literal. */
export interface HttpTarget {
  scheme: 'http' | 'https';
  host: string;
  port: number;
}

export interface ConnectOptions {
  connectTimeoutMs: number;
  /** PEM contents added to the default roots (the policy's `ca_file`). */
  ca?: string[];
  lookup?: Lookup;
  signal?: AbortSignal;
  /** An HTTP proxy to tunnel through with CONNECT (the policy's `proxy`). */
  proxy?: { host: string; port: number };
}

export type ConnectResult =
  | { ok: true; connection: HttpConnection; stages: StageTiming[] }
  | { ok: false; failure: SetupFailure; stage: Stage; diagnostic: string; stages: StageTiming[] };

export interface HttpRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
}

export interface RequestSentFlags {
  request_headers_sent: boolean;
  request_complete: boolean;
}

export interface ExchangeOptions {
  /** From the call until the final response head is complete (1xx do not stop it). */
  responseHeadersTimeoutMs: number;
  /** From the end of the final head until the body is complete: a total, not an idle gap. */
  bodyTimeoutMs: number;
  /** Bytes of body passed to `onBodyChunk` (the store limit). */
  responseBodyBytes: number;
  /** Bytes of body read at most; beyond this the exchange stops reading. */
  responseReadBytes: number;
  onRequestSent?(flags: RequestSentFlags): void;
  onResponseStarted?(status: number, headers: [string, string][]): void;
  /** Receives only bytes within `responseBodyBytes`, in order. */
  onBodyChunk(chunk: Uint8Array): Promise<void> | void;
  signal?: AbortSignal;
}

export type BodyFraming = 'content-length' | 'chunked' | 'close';
export type BrokerTimeout = 'response_headers' | 'body';
export type ExchangeEnd = 'complete' | 'fin' | 'reset' | 'timeout' | 'aborted' | 'error';

/** Raw facts about one request/response exchange; nothing here is a judgement. */
export interface HttpExchangeReport {
  connection_id: string;
  /** The connection had carried an earlier exchange (a pooled keep-alive socket). */
  connection_reused: boolean;
  /** undici failed the request before it was fully handed to the socket (timeouts and aborts excluded). */
  write_failed: boolean;
  /**
   * undici was about to write the request head to this socket. False means no
   * byte of this request was written: e.g. `connection_not_alive`, or undici
   * found the idle socket closed and its reconnect was refused
   * (`POSTERN_CONNECTION_SPENT`).
   */
  request_headers_sent: boolean;
  /** The whole request (head and body) was handed to the socket. */
  request_complete: boolean;
  interim_statuses: number[];
  /** At least one byte of a final (non-1xx) response arrived. */
  response_started: boolean;
  /** Final status once the header section was complete; null before. */
  status: number | null;
  headers: [string, string][] | null;
  headers_complete: boolean;
  framing: BodyFraming | null;
  /** Decided by Postern's own framing parser, never by undici alone. */
  body_complete: boolean;
  body_bytes_read: number;
  body_bytes_passed: number;
  body_over_limit: boolean;
  broker_timeout: BrokerTimeout | null;
  ended_by: ExchangeEnd;
  /** The connection may be reused (keep-alive, complete, nothing left over). */
  keep_alive: boolean;
  /** errno / parser code; never a secret, header value or body. */
  diagnostic?: string;
}
