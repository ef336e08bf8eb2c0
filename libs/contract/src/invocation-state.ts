import type { Binding } from './binding.js';
import type { Code } from './code.js';
import { EvidenceSource } from './evidence-source.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import type { AttemptRow, Evidence } from './record-view.js';
import { Status } from './record-view.js';
import type { RetryRule } from './retry-rule.js';
import { Stage } from './stage.js';

/** One connection try; `dispatched` marks the row that crossed DISPATCH_STARTED. */
export interface AttemptState extends AttemptRow {
  dispatched: boolean;
}

/**
 * A committed 3xx whose same-origin Location the next attempt follows
 * (`redirects: same_origin`). `location` is path and query only.
 */
export interface PendingRedirect {
  attempt: number;
  status: number;
  location: string;
}

/** Evidence gathered from events; the rest of `Evidence` is derived when viewed. */
export type EvidenceState = Omit<
  Evidence,
  'budget_left' | 'known_idempotent' | 'request_fingerprint' | 'credential' | 'idempotency' | 'idempotent_assertion'
>;

/**
 * Everything the fold knows about one invocation. Plain JSON: the projector
 * stores it as is and folds on from it after a restart.
 */
export interface InvocationState {
  invocation_id: string;
  client_request_id: string | null;
  accepted: boolean;
  accepted_at: string | null;
  caller: string | null;
  action: string | null;
  command_digest: string | null;
  /** The redacted command summary of ACTION_ACCEPTED (bodies by digest). */
  command: unknown;
  deadline_at: string | null;
  binding: Binding | null;
  request_fingerprint: string | null;
  credential: { id: string; version: number | null; injection: string | null } | null;

  status: Status;
  outcome: Outcome;
  /** The phase reached; the error's phase once one is recorded. */
  phase: Phase;
  code: Code | null;
  retry_rule: RetryRule | null;
  retry_after_ms: number | null;
  field: string | null;
  message: string | null;
  action_required: string | null;
  /** Set by reconcile or operator; it outranks attempts that are still unknown. */
  observed_outcome: Outcome | null;
  /** The invocation was stopped for good before dispatch (refused or cancelled). */
  closed_before_dispatch: boolean;

  evidence: EvidenceState;
  cancelled: boolean;
  delivered: boolean;
  delivery_failed: boolean;
  result: { result_digest: string; result_object?: string } | null;
  /**
   * The attempt whose result `result` is: a followed redirect commits the 3xx
   * and then the final response, and only the later one stands. Optional so
   * that states stored before it existed still fold on.
   */
  result_attempt?: number;
  /** Set between a followed redirect's 3xx and its follow-up's DISPATCH_STARTED. */
  redirect?: PendingRedirect | null;
  attempts: AttemptState[];
  /** DISPATCH_STARTED events so far: what the budget is counted against. */
  dispatches: number;
  journal: { first_seq: number; last_seq: number; events: number };
}

export function initialState(invocationId: string): InvocationState {
  return {
    invocation_id: invocationId,
    client_request_id: null,
    accepted: false,
    accepted_at: null,
    caller: null,
    action: null,
    command_digest: null,
    command: null,
    deadline_at: null,
    binding: null,
    request_fingerprint: null,
    credential: null,
    status: Status.pending,
    outcome: Outcome.not_attempted,
    phase: Phase.validation,
    code: null,
    retry_rule: null,
    retry_after_ms: null,
    field: null,
    message: null,
    action_required: null,
    observed_outcome: null,
    closed_before_dispatch: false,
    evidence: {
      source: EvidenceSource.transport_observed,
      stage: Stage.validation,
      dispatch_started: false,
      request_headers_sent: false,
      request_complete: false,
      response_headers_received: false,
      response_complete: false,
      attempt: 0,
      connect_try: 0,
      generation: 0,
      dispatch_seq: null,
    },
    cancelled: false,
    delivered: false,
    delivery_failed: false,
    result: null,
    redirect: null,
    attempts: [],
    dispatches: 0,
    journal: { first_seq: 0, last_seq: 0, events: 0 },
  };
}
