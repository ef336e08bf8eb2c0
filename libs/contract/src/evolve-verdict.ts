import type { Code } from './code.js';
import type { InvocationState } from './invocation-state.js';
import { Outcome } from './outcome.js';
import type { Phase } from './phase.js';
import { Status } from './record-view.js';
import type { RetryRule } from './retry-rule.js';
import type { Stage } from './stage.js';

/** A new verdict replaces the old one whole: no field, message or action from before survives it. */
export function setVerdict(s: InvocationState, phase: Phase, code: Code | null, rule: RetryRule, retryAfterMs: number | null): void {
  s.phase = phase;
  s.code = code;
  s.retry_rule = rule;
  s.retry_after_ms = retryAfterMs;
  s.field = null;
  s.message = null;
  s.action_required = null;
}

/** The invocation ends before anything was sent; later events are refused. */
export function closeBeforeDispatch(s: InvocationState, phase: Phase, code: Code, rule: RetryRule, stage: Stage): void {
  setVerdict(s, phase, code, rule, null);
  s.status = Status.resolved;
  s.closed_before_dispatch = true;
  s.evidence.stage = stage;
}

/** Outcome aggregation of CONTRACT.md section 4. */
export function aggregate(s: InvocationState): Outcome {
  if (s.observed_outcome === Outcome.committed) return Outcome.committed;
  const dispatched = s.attempts.filter((r) => r.dispatched);
  if (dispatched.some((r) => r.outcome === Outcome.committed)) return Outcome.committed;
  if (dispatched.length === 0) return Outcome.not_attempted;
  if (dispatched.some((r) => r.outcome === Outcome.unknown)) return Outcome.unknown;
  return Outcome.rejected;
}
