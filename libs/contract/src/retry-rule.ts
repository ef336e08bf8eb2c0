import { Retry } from './retry.js';

/**
 * A retry that depends on the record and the clock. `classify` returns one of
 * these where CONTRACT.md section 6 says "Rule U", "Rule R", or a rule that
 * depends on the target's idempotency; the read side resolves it.
 */
export const DeferredRetry = {
  rule_u: 'rule_u',
  rule_r: 'rule_r',
  /** Complete 5xx other than 502/504. */
  error_response: 'error_response',
  /** SSH exit status not 0, or exit signal. */
  exit_nonzero: 'exit_nonzero',
} as const;
export type DeferredRetry = (typeof DeferredRetry)[keyof typeof DeferredRetry];
export const DEFERRED_RETRIES: readonly DeferredRetry[] = Object.values(DeferredRetry);

export type RetryRule = Retry | DeferredRetry;

export function isRetryRule(value: unknown): value is RetryRule {
  return (
    typeof value === 'string' &&
    ((Object.values(Retry) as string[]).includes(value) || (DEFERRED_RETRIES as readonly string[]).includes(value))
  );
}

export interface RetryContext {
  known_idempotent: boolean;
  /** The target declares a contract and the command carried a key. */
  under_contract: boolean;
  idempotency_expires_at: string | null;
  /** The fingerprint recorded before dispatch still describes the request. */
  fingerprint_unchanged: boolean;
  budget_left: number;
}

/**
 * Turns a rule into the retry a caller sees at `now` (epoch ms). A key past
 * its expiry can no longer dedupe, and with no budget left only asking the
 * remote what happened is safe: both become `reconcile`.
 */
export function resolveRetry(rule: RetryRule, ctx: RetryContext, now: number): Retry {
  const keyUsable =
    ctx.under_contract &&
    ctx.fingerprint_unchanged &&
    ctx.idempotency_expires_at !== null &&
    now < Date.parse(ctx.idempotency_expires_at);
  let retry: Retry;
  switch (rule) {
    case DeferredRetry.rule_u:
      retry = ctx.known_idempotent ? Retry.backoff : keyUsable ? Retry.same_idempotency_key : Retry.reconcile;
      break;
    case DeferredRetry.rule_r:
      retry = ctx.known_idempotent || ctx.under_contract ? Retry.backoff : Retry.reconcile;
      break;
    case DeferredRetry.error_response:
      retry = ctx.known_idempotent
        ? Retry.backoff
        : ctx.under_contract
          ? Retry.same_idempotency_key
          : Retry.reconcile;
      break;
    case DeferredRetry.exit_nonzero:
      retry = ctx.known_idempotent ? Retry.backoff : Retry.reconcile;
      break;
    default:
      retry = rule;
  }
  if (retry === Retry.same_idempotency_key && !keyUsable) retry = Retry.reconcile;
  if (ctx.budget_left <= 0 && (retry === Retry.backoff || retry === Retry.same_idempotency_key)) {
    retry = Retry.reconcile;
  }
  return retry;
}
