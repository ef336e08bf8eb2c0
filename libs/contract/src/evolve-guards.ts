import { AnomalyReason } from './anomaly.js';
import { EVENT_TYPES, EventType } from './event-type.js';
import { EVIDENCE_SOURCES } from './evidence-source.js';
import { isCount, isObject } from './evolve-data.js';
import { refuse, type EventData } from './evolve-refusal.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Outcome } from './outcome.js';

/** The envelope every event must have before its type's handler reads `data`. */
export function checkEnvelope(raw: unknown): StoredEvent {
  if (!isObject(raw)) refuse(AnomalyReason.malformed, 'event is not an object');
  const e = raw as EventData;
  const problems: string[] = [];
  if (typeof e['type'] !== 'string' || !(EVENT_TYPES as readonly string[]).includes(e['type'])) problems.push('type');
  if (typeof e['invocation_id'] !== 'string') problems.push('invocation_id');
  if (!isCount(e['n']) || (e['n'] as number) < 1) problems.push('n');
  if (!isCount(e['attempt'])) problems.push('attempt');
  if (!isCount(e['generation'])) problems.push('generation');
  if (!isCount(e['seq'])) problems.push('seq');
  if (typeof e['at'] !== 'string') problems.push('at');
  if (typeof e['source'] !== 'string' || !(EVIDENCE_SOURCES as readonly string[]).includes(e['source'])) problems.push('source');
  if (!isObject(e['data'])) problems.push('data');
  if (problems.length > 0) refuse(AnomalyReason.malformed, `event envelope has invalid ${problems.join(', ')}`);
  return raw as unknown as StoredEvent;
}

/** The event is the next one of this invocation, and the invocation is still open to it. */
export function checkSequence(state: InvocationState, event: StoredEvent): void {
  if (event.invocation_id !== state.invocation_id) {
    refuse(AnomalyReason.wrong_invocation, `event is for ${event.invocation_id}, not ${state.invocation_id}`);
  }
  if (event.n !== state.journal.events + 1) {
    refuse(AnomalyReason.sequence_gap, `expected event n=${state.journal.events + 1}, got n=${event.n}`);
  }
  if (state.journal.events === 0 && event.type !== EventType.ACTION_ACCEPTED) {
    refuse(AnomalyReason.not_accepted_first, `the first event must be ACTION_ACCEPTED, got ${event.type}`);
  }
  if (state.closed_before_dispatch) {
    refuse(AnomalyReason.after_final, `${event.type} after the invocation was closed before dispatch`);
  }
}

/** Outcomes only move forward: a commit stays a commit, a dispatch stays dispatched. */
export function checkNoRegression(before: Outcome, after: Outcome, type: EventType): void {
  if (before === Outcome.committed && after !== Outcome.committed) {
    refuse(AnomalyReason.outcome_regression, `${type} would move a committed invocation to ${after}`);
  }
  if (before !== Outcome.not_attempted && after === Outcome.not_attempted) {
    refuse(AnomalyReason.outcome_regression, `${type} would move a dispatched invocation back to not_attempted`);
  }
}

export function notAfterDispatch(s: InvocationState, type: string): void {
  if (s.dispatches > 0) refuse(AnomalyReason.outcome_regression, `${type} implies not_attempted after DISPATCH_STARTED`);
}

/**
 * After a commit, or a cancel after dispatch, no further attempt is made;
 * the one exception is the follow-up of a redirect the fold recorded.
 */
export function noNewAttempt(s: InvocationState, type: string, followsRedirect = false): void {
  if (s.outcome === Outcome.committed && !followsRedirect) refuse(AnomalyReason.after_final, `${type} after the invocation committed`);
  if (s.cancelled) refuse(AnomalyReason.after_final, `${type} after the caller cancelled`);
}
