import { Action } from './action-command.js';
import { AnomalyReason } from './anomaly.js';
import { refuse } from './evolve-refusal.js';
import type { AttemptState, InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';

export function lastDispatchedAttempt(s: InvocationState): number {
  let last = 0;
  for (const row of s.attempts) if (row.dispatched && row.attempt > last) last = row.attempt;
  return last;
}

/** The row of the event's attempt, which must have crossed DISPATCH_STARTED. */
export function dispatchedRow(s: InvocationState, e: StoredEvent, type: string): AttemptState {
  const row = s.attempts.find((r) => r.dispatched && r.attempt === e.attempt);
  if (row === undefined) refuse(AnomalyReason.attempt_mismatch, `${type} for attempt ${e.attempt}, which was not dispatched`);
  return row;
}

/** SSH attempts name their stages after the channel and exec, not the HTTP request. */
export function isSsh(s: InvocationState): boolean {
  return (s.binding?.action ?? s.action) === Action.ssh_exec;
}
