import { AnomalyReason } from './anomaly.js';
import { Code } from './code.js';
import { dispatchedRow } from './evolve-attempt-rows.js';
import { isCode, isCount, isPhase, isStage, optString } from './evolve-data.js';
import { mergeEvidence } from './evolve-evidence.js';
import { endFollowUp, followRedirect, redirectPending } from './evolve-redirect.js';
import { refuse, type EventData } from './evolve-refusal.js';
import { closeBeforeDispatch, setVerdict } from './evolve-verdict.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { OUTCOMES, Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Status } from './record-view.js';
import { Retry } from './retry.js';
import { DeferredRetry, isRetryRule } from './retry-rule.js';

// What a dispatched attempt came to: the remote's answer, an unknown, a
// recovery, a later observer's word, or the caller's cancel.

export function onResponseComplete(s: InvocationState, e: StoredEvent, d: EventData): void {
  resolveAttempt(s, e, d, 'REMOTE_RESPONSE_COMPLETE', null);
  s.evidence.request_headers_sent = d['request_headers_sent'] !== false;
  s.evidence.request_complete = d['request_complete'] !== false;
  s.evidence.response_headers_received = true;
  s.evidence.response_complete = d['response_complete'] !== false;
  followRedirect(s, e, d);
}

export function onOutcomeUnknown(s: InvocationState, e: StoredEvent, d: EventData): void {
  resolveAttempt(s, e, d, 'REMOTE_OUTCOME_UNKNOWN', Outcome.unknown);
}

export function onRecoveryObserved(s: InvocationState, e: StoredEvent, d: EventData): void {
  resolveAttempt(s, e, d, 'RECOVERY_OBSERVED', Outcome.unknown);
  s.evidence.recovered = true;
}

export function onCallerCancelled(s: InvocationState, d: EventData): void {
  const phase = d['phase'] === undefined ? s.phase : d['phase'];
  if (!isPhase(phase)) refuse(AnomalyReason.malformed, 'CALLER_CANCELLED has an invalid data.phase');
  if (s.dispatches === 0) {
    s.cancelled = true;
    closeBeforeDispatch(s, phase, Code.CALLER_CANCELLED, Retry.never, s.evidence.stage);
    return;
  }
  if (redirectPending(s)) {
    // The follow-up was not dispatched: no further attempt is made.
    s.cancelled = true;
    endFollowUp(s, phase, Code.CALLER_CANCELLED, Retry.never, s.evidence.stage);
    return;
  }
  const followUpInFlight = s.outcome === Outcome.committed && s.status === Status.pending;
  if (s.outcome === Outcome.committed && !followUpInFlight) {
    refuse(AnomalyReason.after_final, 'CALLER_CANCELLED after the invocation committed');
  }
  s.cancelled = true;
  s.status = Status.resolved;
  if (followUpInFlight) {
    setVerdict(s, Phase.remote_execution, Code.CALLER_CANCELLED, DeferredRetry.rule_u, null);
    return;
  }
  // The remote result may still arrive and be classified; until then the
  // caller is told it cancelled and that the outcome is open.
  if (s.outcome === Outcome.unknown) setVerdict(s, Phase.remote_execution, Code.CALLER_CANCELLED, DeferredRetry.rule_u, null);
}

/** RECONCILE_OBSERVED and OPERATOR_ATTESTED: a later observer settles an unknown outcome. */
export function onObserved(s: InvocationState, e: StoredEvent, d: EventData, type: string): void {
  const outcome = d['outcome'];
  if (outcome !== Outcome.committed && outcome !== Outcome.rejected) {
    refuse(AnomalyReason.malformed, `${type} needs data.outcome committed or rejected`);
  }
  if (s.dispatches === 0) refuse(AnomalyReason.outcome_regression, `${type} for an invocation that was never dispatched`);
  if (s.outcome !== Outcome.unknown && s.outcome !== outcome) {
    refuse(AnomalyReason.outcome_regression, `${type} would move a ${s.outcome} invocation to ${outcome}`);
  }
  s.observed_outcome = outcome;
  if (outcome === Outcome.rejected) {
    for (const row of s.attempts) if (row.dispatched && row.outcome === Outcome.unknown) row.outcome = Outcome.rejected;
  }
  s.evidence.source = e.source;
  s.status = Status.resolved;
  if (outcome === Outcome.committed) {
    setVerdict(s, Phase.remote_execution, null, Retry.never, null);
  } else if (s.code !== null) {
    // The remote did not act; a new attempt is safe unless the caller cancelled.
    s.retry_rule = s.cancelled ? Retry.never : Retry.backoff;
  }
}

/** REMOTE_RESPONSE_COMPLETE, REMOTE_OUTCOME_UNKNOWN and RECOVERY_OBSERVED: a dispatched attempt's verdict. */
function resolveAttempt(s: InvocationState, e: StoredEvent, d: EventData, type: string, fixed: Outcome | null): void {
  const outcome = d['outcome'] === undefined && fixed !== null ? fixed : d['outcome'];
  if (typeof outcome !== 'string' || !(OUTCOMES as readonly string[]).includes(outcome)) {
    refuse(AnomalyReason.malformed, `${type} needs data.outcome`);
  }
  if (outcome === Outcome.not_attempted) refuse(AnomalyReason.outcome_regression, `${type} says not_attempted after dispatch`);
  if (fixed !== null && outcome !== fixed) refuse(AnomalyReason.malformed, `${type} must carry outcome ${fixed}`);
  const o = outcome as Outcome;
  const codeRaw = d['code'] === undefined ? (fixed !== null ? Code.REMOTE_OUTCOME_UNKNOWN : null) : d['code'];
  if (codeRaw !== null && !isCode(codeRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.code`);
  if (codeRaw === null && o !== Outcome.committed) refuse(AnomalyReason.malformed, `${type} without a code must be committed`);
  const ruleRaw = d['retry_rule'] === undefined ? (codeRaw === null ? Retry.never : DeferredRetry.rule_u) : d['retry_rule'];
  if (!isRetryRule(ruleRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.retry_rule`);
  const phaseRaw = d['phase'] === undefined ? Phase.remote_execution : d['phase'];
  if (!isPhase(phaseRaw)) refuse(AnomalyReason.malformed, `${type} has an invalid data.phase`);

  const row = dispatchedRow(s, e, type);
  if (row.outcome !== Outcome.unknown && row.outcome !== o) {
    refuse(AnomalyReason.outcome_regression, `${type} would move attempt ${row.attempt} from ${row.outcome} to ${o}`);
  }
  if (s.observed_outcome !== null && o !== s.observed_outcome) {
    refuse(AnomalyReason.outcome_regression, `${type} contradicts the ${s.observed_outcome} outcome already observed`);
  }
  const stage = isStage(d['stage']) ? d['stage'] : row.stage;
  row.outcome = o;
  row.code = codeRaw;
  row.stage = stage;
  s.evidence.stage = stage;
  s.evidence.source = e.source;
  mergeEvidence(s.evidence, d);
  s.status = Status.resolved;
  setVerdict(s, phaseRaw, codeRaw, ruleRaw, isCount(d['retry_after_ms']) ? d['retry_after_ms'] : null);
  if (d['action_required'] !== undefined) s.action_required = optString(d['action_required']);
}
