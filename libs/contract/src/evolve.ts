import { AnomalyReason, type Anomaly } from './anomaly.js';
import { EventType } from './event-type.js';
import { onConnectionFailed, onDispatchStarted, onLeaseAcquired, onRequestSent, onResponseStarted, onRetryScheduled } from './evolve-attempt.js';
import { checkEnvelope, checkNoRegression, checkSequence } from './evolve-guards.js';
import {
  onActionAccepted,
  onApprovalDenied,
  onApprovalPending,
  onCredentialAuthorized,
  onCredentialRejected,
  onPreflightRejected,
  onPreflightValidated,
} from './evolve-preflight.js';
import { Refused, refuse } from './evolve-refusal.js';
import { onCallerCancelled, onObserved, onOutcomeUnknown, onRecoveryObserved, onResponseComplete } from './evolve-resolution.js';
import { onResultCommitted, onResultDelivered, onResultDeliveryFailed } from './evolve-result.js';
import { aggregate } from './evolve-verdict.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';

export type EvolveResult = { ok: true; state: InvocationState } | { ok: false; anomaly: Anomaly };

/**
 * The fold every service shares: one journal event applied to the state of
 * its invocation. An event that would break an invariant of CONTRACT.md
 * section 6 (a gap, a regression, a dispatch after the end) is refused as an
 * anomaly and the state is left as it was. Never throws.
 */
export function evolve(state: InvocationState, event: StoredEvent): EvolveResult {
  try {
    return { ok: true, state: apply(state, event) };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, anomaly: err.anomaly };
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, anomaly: { reason: AnomalyReason.malformed, message: `event could not be applied: ${message}` } };
  }
}

/** Handlers change a copy, so a refusal halfway through leaves the caller's state untouched. */
function apply(state: InvocationState, raw: unknown): InvocationState {
  const event = checkEnvelope(raw);
  checkSequence(state, event);
  const before = state.outcome;
  const s = clone(state);
  applyEvent(s, event, event.data);
  s.outcome = aggregate(s);
  checkNoRegression(before, s.outcome, event.type);
  if (s.journal.events === 0) s.journal.first_seq = event.seq;
  s.journal.last_seq = event.seq;
  s.journal.events += 1;
  return s;
}

function applyEvent(s: InvocationState, e: StoredEvent, d: StoredEvent['data']): void {
  const type = e.type;
  switch (type) {
    case EventType.ACTION_ACCEPTED:
      return onActionAccepted(s, e, d);
    case EventType.PREFLIGHT_VALIDATED:
      return onPreflightValidated(s, d);
    case EventType.PREFLIGHT_REJECTED:
      return onPreflightRejected(s, d);
    case EventType.APPROVAL_REQUESTED:
    case EventType.APPROVAL_GRANTED:
      return onApprovalPending(s, type);
    case EventType.APPROVAL_DENIED:
      return onApprovalDenied(s, d);
    case EventType.CREDENTIAL_AUTHORIZED:
      return onCredentialAuthorized(s, d);
    case EventType.CREDENTIAL_REJECTED:
      return onCredentialRejected(s, d);
    case EventType.CONNECTION_FAILED:
      return onConnectionFailed(s, e, d);
    case EventType.LEASE_ACQUIRED:
      return onLeaseAcquired(s, e);
    case EventType.DISPATCH_STARTED:
      return onDispatchStarted(s, e, d);
    case EventType.REQUEST_SENT:
      return onRequestSent(s, e, d);
    case EventType.REMOTE_RESPONSE_STARTED:
      return onResponseStarted(s, e, d);
    case EventType.REMOTE_RESPONSE_COMPLETE:
      return onResponseComplete(s, e, d);
    case EventType.REMOTE_OUTCOME_UNKNOWN:
      return onOutcomeUnknown(s, e, d);
    case EventType.RECOVERY_OBSERVED:
      return onRecoveryObserved(s, e, d);
    case EventType.CALLER_CANCELLED:
      return onCallerCancelled(s, d);
    case EventType.RETRY_SCHEDULED:
      return onRetryScheduled(s);
    case EventType.RECONCILE_OBSERVED:
    case EventType.OPERATOR_ATTESTED:
      return onObserved(s, e, d, type);
    case EventType.RESULT_COMMITTED:
      return onResultCommitted(s, e, d);
    case EventType.RESULT_DELIVERY_FAILED:
      return onResultDeliveryFailed(s);
    case EventType.RESULT_DELIVERED:
      return onResultDelivered(s, d);
    default: {
      // Unreachable once checkEnvelope passed; a new EventType without a case here does not compile.
      const unhandled: never = type;
      return refuse(AnomalyReason.malformed, `no fold for event type ${String(unhandled)}`);
    }
  }
}

function clone(s: InvocationState): InvocationState {
  return {
    ...s,
    evidence: { ...s.evidence },
    attempts: s.attempts.map((r) => ({ ...r })),
    journal: { ...s.journal },
  };
}
