import { Outcome } from './outcome.js';
import type { RecordView } from './record-view.js';
import { Retry } from './retry.js';

/** What a client may do next with a record (CONTRACT.md section 6). */
export const Verdict = {
  FETCH: 'FETCH',
  RETRY_NEW_ATTEMPT: 'RETRY_NEW_ATTEMPT',
  RETRY_SAME_KEY: 'RETRY_SAME_KEY',
  RECONCILE: 'RECONCILE',
  STOP_FOR_CORRECTION: 'STOP_FOR_CORRECTION',
  RETRY_WHEN_ALLOWED: 'RETRY_WHEN_ALLOWED',
  RETURN_RECORDED_RESULT: 'RETURN_RECORDED_RESULT',
} as const;
export type Verdict = (typeof Verdict)[keyof typeof Verdict];
export const VERDICTS: readonly Verdict[] = Object.values(Verdict);

/** The operation a client is about to (re)send; its fingerprint if it has one. */
export interface Operation {
  fingerprint?: string;
}

/**
 * The normative pseudo-code of CONTRACT.md section 6, line by line. The SDK
 * and `auto_retry` use this and nothing else. `record.retry` is the record's
 * `error.retry` (absent on a success).
 */
export function decide(record: RecordView, operation: Operation, now: number): Verdict {
  const retry = record.error?.retry ?? null;
  if (retry === Retry.fetch_result) return Verdict.FETCH;
  if (record.evidence.intervention_required === true) return Verdict.RETURN_RECORDED_RESULT;
  if (record.outcome === Outcome.not_attempted) {
    return retry === Retry.backoff ? Verdict.RETRY_NEW_ATTEMPT : Verdict.STOP_FOR_CORRECTION;
  }
  if (record.outcome === Outcome.unknown) {
    if (record.evidence.budget_left === 0) return Verdict.RECONCILE;
    if (record.evidence.known_idempotent) return Verdict.RETRY_NEW_ATTEMPT;
    const idem = record.evidence.idempotency;
    if (
      retry === Retry.same_idempotency_key &&
      idem !== undefined &&
      operation.fingerprint !== undefined &&
      operation.fingerprint === idem.fingerprint &&
      now < Date.parse(idem.expires_at)
    ) {
      return Verdict.RETRY_SAME_KEY;
    }
    return Verdict.RECONCILE;
  }
  if (record.outcome === Outcome.rejected && (retry === Retry.backoff || retry === Retry.same_idempotency_key)) {
    return Verdict.RETRY_WHEN_ALLOWED;
  }
  return Verdict.RETURN_RECORDED_RESULT;
}
