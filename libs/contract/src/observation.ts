import type { Code } from './code.js';
import type { Outcome } from './outcome.js';
import type { Phase } from './phase.js';

/**
 * What a transport or service saw, as plain facts. Transports report these;
 * only `classify` turns them into phase, outcome, code and retry.
 */

/** A failure before the dispatch boundary, named by what failed. */
export const SetupFailure = {
  dns_nxdomain: 'dns_nxdomain',
  dns_temporary: 'dns_temporary',
  tcp_refused: 'tcp_refused',
  tcp_timeout: 'tcp_timeout',
  tcp_unreachable: 'tcp_unreachable',
  tls_cert_rejected: 'tls_cert_rejected',
  tls_handshake: 'tls_handshake',
  proxy_tunnel: 'proxy_tunnel',
  ssh_kex: 'ssh_kex',
  ssh_host_key: 'ssh_host_key',
  ssh_auth: 'ssh_auth',
} as const;
export type SetupFailure = (typeof SetupFailure)[keyof typeof SetupFailure];
export const SETUP_FAILURES: readonly SetupFailure[] = Object.values(SetupFailure);

/** Validation and credential refusals: the code alone decides. */
export interface PreflightObservation {
  kind: 'preflight';
  code: Code;
}

export interface SetupObservation {
  kind: 'setup';
  failure: SetupFailure;
}

/** The remote's idempotency contract statuses, when the attempt is under one. */
export interface ContractStatuses {
  in_use_status: number;
  mismatch_status: number;
}

/**
 * An HTTP attempt after DISPATCH_STARTED. Flags, not interpretations: the
 * transport says what it saw on the wire.
 */
export interface HttpObservation {
  kind: 'http';
  /** The request went out on a pooled keep-alive connection. */
  connection_reused: boolean;
  /** A write to the socket failed. */
  write_failed: boolean;
  /** The whole request (headers and body) was handed to the socket. */
  request_complete: boolean;
  /** At least one byte of a final (non-1xx) response arrived. */
  response_started: boolean;
  /** The final status, once the status line and the header section are complete; null before. */
  status: number | null;
  /**
   * The body's framing was verified complete: Content-Length reached, the
   * terminating chunk seen, or a clean close on a close-delimited body.
   */
  body_complete: boolean;
  /** The broker's own timeout ended the attempt. */
  broker_timeout: boolean;
  /** The body exceeded `response_body_bytes` (the rest was read, not stored). */
  body_over_limit: boolean;
  /** Parsed Retry-After, in milliseconds from receipt. */
  retry_after_ms?: number;
  /** The Location header (used for 202 async operations). */
  location?: string;
  /** A job id the remote named for a 202. */
  job_id?: string;
  /** `origin` or `proxy:<name>`: who produced the response. */
  hop?: string;
  /** Parsed RFC 9209 Proxy-Status entries. */
  proxy_status?: unknown[];
  /** Set when the target declares a contract and the command carried a key. */
  contract: ContractStatuses | null;
}

/** An SSH attempt after DISPATCH_STARTED (the channel open is part of the dispatch). */
export interface SshObservation {
  kind: 'ssh';
  /** The server refused to open the session channel. */
  channel_open_refused: boolean;
  /** The exec request's reply: success, failure, or none seen. */
  exec_reply: 'success' | 'failure' | null;
  /** The connection was lost before an exit message arrived. */
  connection_lost: boolean;
  /** The channel closed (with or without an exit message). */
  channel_closed: boolean;
  exit_status: number | null;
  exit_signal: string | null;
  /** stdout or stderr exceeded `output_bytes` (read on to exit, not stored). */
  output_over_limit: boolean;
  /** An output stream broke after the exit message arrived. */
  output_broken: boolean;
  /** The broker's own timeout ended the attempt. */
  broker_timeout: boolean;
}

export interface CallerCancelledObservation {
  kind: 'caller_cancelled';
  /** DISPATCH_STARTED had been appended. */
  dispatched: boolean;
  /** The phase the action had reached (used when not dispatched). */
  phase: Phase;
}

/** A restart found DISPATCH_STARTED without a resolution and an expired lease. */
export interface RecoveryObservation {
  kind: 'recovery';
}

export interface BudgetExhaustedObservation {
  kind: 'budget_exhausted';
  /** The invocation's outcome as recorded; it is kept. */
  outcome: Outcome;
}

export interface ResultDeliveryFailedObservation {
  kind: 'result_delivery_failed';
  outcome: Outcome;
}

export interface ResultStoreFailedObservation {
  kind: 'result_store_failed';
  /** The outcome REMOTE_RESPONSE_COMPLETE would have carried. */
  outcome: Outcome;
  /** REMOTE_RESPONSE_COMPLETE is durable in the journal. */
  response_complete_durable: boolean;
}

export type Observation =
  | PreflightObservation
  | SetupObservation
  | HttpObservation
  | SshObservation
  | CallerCancelledObservation
  | RecoveryObservation
  | BudgetExhaustedObservation
  | ResultDeliveryFailedObservation
  | ResultStoreFailedObservation;
