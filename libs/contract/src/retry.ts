/** What the caller may safely do next (CONTRACT.md section 4). */
export const Retry = {
  never: 'never',
  after_correction: 'after_correction',
  backoff: 'backoff',
  same_idempotency_key: 'same_idempotency_key',
  reconcile: 'reconcile',
  fetch_result: 'fetch_result',
} as const;
export type Retry = (typeof Retry)[keyof typeof Retry];
export const RETRIES: readonly Retry[] = Object.values(Retry);
