import { AnomalyReason } from './anomaly.js';
import type { Code } from './code.js';
import { dispatchedRow, lastDispatchedAttempt } from './evolve-attempt-rows.js';
import { isCount, isObject } from './evolve-data.js';
import { refuse, type EventData } from './evolve-refusal.js';
import { setVerdict } from './evolve-verdict.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Outcome } from './outcome.js';
import type { Phase } from './phase.js';
import { Status } from './record-view.js';
import type { RetryRule } from './retry-rule.js';
import type { Stage } from './stage.js';

/** A followed redirect whose follow-up has not crossed DISPATCH_STARTED yet. */
export function redirectPending(s: InvocationState): boolean {
  return s.redirect !== undefined && s.redirect !== null;
}

/** The follow-up of a redirect stopped before dispatch: the invocation keeps its outcome and says why. */
export function endFollowUp(s: InvocationState, phase: Phase, code: Code, rule: RetryRule, stage: Stage): void {
  s.redirect = null;
  s.status = Status.resolved;
  s.evidence.stage = stage;
  setVerdict(s, phase, code, rule, null);
}

/**
 * REMOTE_RESPONSE_COMPLETE, once its attempt is resolved: records the
 * redirect its `data.redirect` asks for when it is to be followed, and clears
 * any earlier one otherwise.
 */
export function followRedirect(s: InvocationState, e: StoredEvent, d: EventData): void {
  s.redirect = null;
  const redirect = redirectOf(d);
  if (redirect === null) return;
  const row = dispatchedRow(s, e, 'REMOTE_RESPONSE_COMPLETE');
  // Followed only from the latest attempt's clean commit, within the
  // budget and never after a cancel: otherwise the 3xx is the last word,
  // as it is under `redirects: none`.
  if (
    row.outcome === Outcome.committed &&
    row.code === null &&
    e.attempt === lastDispatchedAttempt(s) &&
    !s.cancelled &&
    s.binding !== null &&
    s.dispatches < s.binding.budget
  ) {
    s.redirect = { attempt: e.attempt, ...redirect };
    s.status = Status.pending;
  }
}

/** `data.redirect` of REMOTE_RESPONSE_COMPLETE: a 3xx status and a path-absolute Location. */
function redirectOf(d: EventData): { status: number; location: string } | null {
  const r = d['redirect'];
  if (r === undefined) return null;
  if (!isObject(r) || !isCount(r['status']) || r['status'] < 300 || r['status'] > 399 || typeof r['location'] !== 'string' || !r['location'].startsWith('/') || r['location'].startsWith('//')) {
    refuse(AnomalyReason.malformed, 'REMOTE_RESPONSE_COMPLETE has an invalid data.redirect');
  }
  return { status: r['status'], location: r['location'] };
}
