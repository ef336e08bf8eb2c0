import { Code } from './code.js';
import type { InvocationState } from './invocation-state.js';
import { MESSAGES } from './messages.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Status, type ErrorView, type Evidence, type RecordView } from './record-view.js';
import { Retry } from './retry.js';
import { resolveRetry, type RetryContext } from './retry-rule.js';

/**
 * The RecordView of CONTRACT.md section 4 at `now` (epoch ms). Retry advice
 * depends on the clock (an idempotency key expires) and on the budget, so it
 * is resolved here, when the record is read, never stored.
 */
export function toRecordView(state: InvocationState, now: number): RecordView {
  const binding = state.binding;
  const budgetLeft = binding !== null ? Math.max(0, binding.budget - state.dispatches) : 0;
  const ctx: RetryContext = {
    known_idempotent: binding?.known_idempotent ?? false,
    under_contract: binding?.idempotency != null,
    idempotency_expires_at: binding?.idempotency?.expires_at ?? null,
    fingerprint_unchanged: true,
    // The budget counts dispatches: with none made, none is spent.
    budget_left: state.dispatches === 0 ? Math.max(1, budgetLeft) : budgetLeft,
  };

  const ev = state.evidence;
  const evidence: Evidence = {
    source: ev.source,
    stage: ev.stage,
    dispatch_started: ev.dispatch_started,
    request_headers_sent: ev.request_headers_sent,
    request_complete: ev.request_complete,
    response_headers_received: ev.response_headers_received,
    response_complete: ev.response_complete,
    attempt: ev.attempt,
    connect_try: ev.connect_try,
    generation: ev.generation,
    dispatch_seq: ev.dispatch_seq,
    budget_left: budgetLeft,
    known_idempotent: ctx.known_idempotent,
    request_fingerprint: state.request_fingerprint,
    credential: state.credential,
  };
  if (ev.connection !== undefined) evidence.connection = ev.connection;
  if (binding?.idempotency) {
    evidence.idempotency = {
      key: binding.idempotency.key,
      scope: binding.idempotency.scope,
      fingerprint: state.request_fingerprint ?? '',
      remote_contract: binding.idempotency.remote_contract,
      expires_at: binding.idempotency.expires_at,
    };
  }
  const optional = [
    'framing',
    'response_status',
    'response_digest',
    'result_object',
    'remote_request_id',
    'hop',
    'proxy_status',
    'async_operation',
    'exec_accepted',
    'exit_status',
    'exit_signal',
    'stdout_complete',
    'stderr_complete',
    'recovered',
  ] as const;
  for (const key of optional) {
    if (ev[key] !== undefined) (evidence as unknown as Record<string, unknown>)[key] = ev[key];
  }
  if (binding?.idempotent_assertion) evidence.idempotent_assertion = binding.idempotent_assertion;
  if (ev.intervention_required !== undefined) evidence.intervention_required = ev.intervention_required;

  return {
    invocation_id: state.invocation_id,
    client_request_id: state.client_request_id ?? '',
    status: state.status,
    outcome: state.outcome,
    cancelled: state.cancelled,
    delivered: state.delivered,
    error: errorOf(state, ctx, now),
    result: state.result,
    evidence,
    attempts: state.attempts.map(({ attempt, connect_try, stage, outcome, code }) => ({
      attempt,
      connect_try,
      stage,
      outcome,
      code,
    })),
    journal: { ...state.journal },
  };
}

function errorOf(state: InvocationState, ctx: RetryContext, now: number): ErrorView | null {
  if (state.delivery_failed && !state.delivered) {
    return {
      code: Code.RESULT_DELIVERY_FAILED,
      phase: Phase.result_delivery,
      outcome: state.outcome,
      retry: Retry.fetch_result,
      message: MESSAGES[Code.RESULT_DELIVERY_FAILED],
    };
  }
  if (state.code === null) return null;
  const exhausted = budgetExhausted(state, ctx, now);
  if (exhausted !== null) return exhausted;
  const error: ErrorView = {
    code: state.code,
    phase: state.phase,
    outcome: state.outcome,
    retry: resolveRetry(state.retry_rule ?? Retry.never, ctx, now),
    message: state.message ?? MESSAGES[state.code],
  };
  if (state.field !== null) error.field = state.field;
  if (state.retry_after_ms !== null) error.retry_after_ms = state.retry_after_ms;
  const actionRequired = state.action_required ?? (state.code === Code.VAULT_LOCKED ? 'vault_unlock' : null);
  if (actionRequired !== null) error.action_required = actionRequired;
  return error;
}

/**
 * CONTRACT.md section 6, "dispatch budget of the invocation spent": a record
 * that would still be worth another dispatch, were any left, says the budget
 * is what stops it, and only asking the remote is safe. The last attempt's
 * evidence and outcome stay as recorded; only the error changes.
 */
function budgetExhausted(state: InvocationState, ctx: RetryContext, now: number): ErrorView | null {
  if (state.status !== Status.resolved || state.dispatches === 0 || ctx.budget_left > 0 || state.cancelled) return null;
  if (state.outcome !== Outcome.unknown && state.outcome !== Outcome.rejected) return null;
  const unspent = resolveRetry(state.retry_rule ?? Retry.never, { ...ctx, budget_left: 1 }, now);
  if (unspent !== Retry.backoff && unspent !== Retry.same_idempotency_key) return null;
  const error: ErrorView = {
    code: Code.RETRY_BUDGET_EXHAUSTED,
    phase: Phase.remote_execution,
    outcome: state.outcome,
    retry: Retry.reconcile,
    message: MESSAGES[Code.RETRY_BUDGET_EXHAUSTED],
  };
  if (state.retry_after_ms !== null) error.retry_after_ms = state.retry_after_ms;
  return error;
}
