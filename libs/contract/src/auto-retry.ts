import { decide, Verdict } from './decide.js';
import { EventType } from './event-type.js';
import type { InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Outcome } from './outcome.js';
import { Status } from './record-view.js';
import { toRecordView } from './to-record-view.js';

/** The verdicts of `decide()` that let the broker dispatch again on its own. */
const RETRY_VERDICTS: ReadonlySet<Verdict> = new Set([Verdict.RETRY_NEW_ATTEMPT, Verdict.RETRY_SAME_KEY, Verdict.RETRY_WHEN_ALLOWED]);

const BACKOFF_BASE_MS = 200;
const BACKOFF_CAP_MS = 10_000;

/** RETRY_SCHEDULED for the attempt that just resolved, as `dispatch.auto_retry` has it. */
export interface ScheduledRetry {
  /** The attempt the retry follows, and its lease generation. */
  attempt: number;
  generation: number;
  data: { reason: Verdict; unsafe: false; not_before: string };
}

/** 200 ms, 400 ms, 800 ms … after attempt 1, 2, 3 …, never more than 10 s. */
export function backoffMs(attempt: number): number {
  const exponent = Math.max(0, Math.min(attempt - 1, 16));
  return Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** exponent);
}

/**
 * CONTRACT.md section 6: after dispatch the broker retries only where the
 * binding says `auto_retry`, only on a RETRY_* verdict of `decide()`, and
 * only while the journal shows budget left. An attempt that never dispatched
 * is not retried here (its connection tries already were), nor is a commit,
 * a cancel, or a record someone has reconciled. The wait is the remote's
 * Retry-After where it sent one, else a bounded backoff.
 */
export function autoRetryOf(state: InvocationState, now: number): ScheduledRetry | null {
  const binding = state.binding;
  if (binding === null || !binding.auto_retry) return null;
  if (state.status !== Status.resolved || state.cancelled || state.dispatches === 0) return null;
  if (state.outcome !== Outcome.unknown && state.outcome !== Outcome.rejected) return null;
  if (state.observed_outcome !== null || (state.redirect ?? null) !== null) return null;
  if (state.attempts.at(-1)?.dispatched !== true) return null;
  if (binding.budget - state.dispatches <= 0) return null;
  const record = toRecordView(state, now);
  const fingerprint = record.evidence.request_fingerprint;
  const verdict = decide(record, fingerprint === null ? {} : { fingerprint }, now);
  if (!RETRY_VERDICTS.has(verdict)) return null;
  const waitMs = record.error?.retry_after_ms ?? backoffMs(state.evidence.attempt);
  return {
    attempt: state.evidence.attempt,
    generation: state.evidence.generation,
    data: { reason: verdict, unsafe: false, not_before: new Date(now + waitMs).toISOString() },
  };
}

/**
 * The `not_before` of a RETRY_SCHEDULED that no dispatch has followed yet,
 * in epoch ms: the next attempt waits for it, whichever message brings it.
 */
export function retryNotBefore(history: readonly StoredEvent[]): number | null {
  let notBefore: number | null = null;
  for (const e of history) {
    if (e.type === EventType.DISPATCH_STARTED) notBefore = null;
    if (e.type !== EventType.RETRY_SCHEDULED) continue;
    const at = typeof e.data['not_before'] === 'string' ? Date.parse(e.data['not_before']) : Number.NaN;
    notBefore = Number.isFinite(at) ? at : null;
  }
  return notBefore;
}
