import type { Code } from './code.js';
import type { EvidenceSource } from './evidence-source.js';
import type { Outcome } from './outcome.js';
import type { Phase } from './phase.js';
import type { Retry } from './retry.js';
import type { Stage } from './stage.js';

/** The public error of an invocation or of a request (CONTRACT.md sections 2 and 4). */
export interface ErrorView {
  code: Code;
  phase: Phase;
  outcome: Outcome;
  retry: Retry;
  message: string;
  field?: string;
  retry_after_ms?: number;
  action_required?: string;
}

/** A request that is not about an invocation fails with this body. */
export interface ErrorReply {
  error: ErrorView;
}

export interface AttemptRow {
  attempt: number;
  connect_try: number;
  stage: Stage;
  outcome: Outcome;
  code: Code | null;
}

export interface IdempotencyEvidence {
  key: string;
  scope: string;
  fingerprint: string;
  remote_contract: 'configured';
  expires_at: string;
}

export interface Evidence {
  source: EvidenceSource;
  stage: Stage;
  dispatch_started: boolean;
  request_headers_sent: boolean;
  request_complete: boolean;
  response_headers_received: boolean;
  response_complete: boolean;
  attempt: number;
  connect_try: number;
  generation: number;
  dispatch_seq: number | null;
  budget_left: number;
  known_idempotent: boolean;
  request_fingerprint: string | null;
  credential: { id: string; version: number | null; injection: string | null } | null;
  connection?: { id: string; reused: boolean; remote_address?: string; tls_peer_sha256?: string };
  idempotency?: IdempotencyEvidence;
  framing?: 'content-length' | 'chunked' | 'close';
  response_status?: number;
  response_digest?: string;
  result_object?: string;
  remote_request_id?: string;
  hop?: string;
  proxy_status?: unknown[];
  async_operation?: { status_url: string; job_id?: string };
  exec_accepted?: boolean;
  exit_status?: number;
  exit_signal?: string;
  stdout_complete?: boolean;
  stderr_complete?: boolean;
  recovered?: boolean;
  idempotent_assertion?: 'honoured' | 'ignored';
  intervention_required?: boolean;
}

export const Status = { pending: 'pending', resolved: 'resolved' } as const;
export type Status = (typeof Status)[keyof typeof Status];

/** What the broker says about an invocation (CONTRACT.md section 4). */
export interface RecordView {
  invocation_id: string;
  client_request_id: string;
  status: Status;
  outcome: Outcome;
  cancelled: boolean;
  delivered: boolean;
  error: ErrorView | null;
  result: { result_digest: string; result_object?: string } | null;
  evidence: Evidence;
  attempts: AttemptRow[];
  journal: { first_seq: number; last_seq: number; events: number };
}
