import { describe, expect, it } from 'vitest';
import { Retry } from './retry.js';
import { DeferredRetry, isRetryRule, resolveRetry, type RetryContext } from './retry-rule.js';

const EXPIRES = '2026-11-30T17:00:00.000Z';
const BEFORE = Date.parse(EXPIRES) - 1;
const AT = Date.parse(EXPIRES);
const ctx: RetryContext = {
  known_idempotent: false,
  under_contract: true,
  idempotency_expires_at: EXPIRES,
  fingerprint_unchanged: true,
  budget_left: 2,
};

describe('resolveRetry', () => {
  it('Rule U gives same_idempotency_key before expiry and reconcile from expiry on', () => {
    expect(resolveRetry(DeferredRetry.rule_u, ctx, BEFORE)).toBe(Retry.same_idempotency_key);
    expect(resolveRetry(DeferredRetry.rule_u, ctx, AT)).toBe(Retry.reconcile);
  });

  it('Rule U needs an unchanged fingerprint to reuse the key', () => {
    expect(resolveRetry(DeferredRetry.rule_u, { ...ctx, fingerprint_unchanged: false }, BEFORE)).toBe(Retry.reconcile);
  });

  it('Rule U prefers backoff when known idempotent', () => {
    expect(resolveRetry(DeferredRetry.rule_u, { ...ctx, known_idempotent: true }, AT)).toBe(Retry.backoff);
  });

  it('Rule R is backoff under a contract even after the key expired', () => {
    expect(resolveRetry(DeferredRetry.rule_r, ctx, AT + 1)).toBe(Retry.backoff);
    expect(resolveRetry(DeferredRetry.rule_r, { ...ctx, under_contract: false }, BEFORE)).toBe(Retry.reconcile);
  });

  it('a fixed same_idempotency_key also turns into reconcile after expiry', () => {
    expect(resolveRetry(Retry.same_idempotency_key, ctx, BEFORE)).toBe(Retry.same_idempotency_key);
    expect(resolveRetry(Retry.same_idempotency_key, ctx, AT)).toBe(Retry.reconcile);
  });

  it('with no budget left, backoff and same key turn into reconcile', () => {
    const spent = { ...ctx, budget_left: 0 };
    expect(resolveRetry(Retry.backoff, spent, BEFORE)).toBe(Retry.reconcile);
    expect(resolveRetry(DeferredRetry.rule_u, spent, BEFORE)).toBe(Retry.reconcile);
    expect(resolveRetry(DeferredRetry.rule_r, { ...spent, known_idempotent: true }, BEFORE)).toBe(Retry.reconcile);
  });

  it.each([Retry.never, Retry.after_correction, Retry.fetch_result])('with no budget left, %s is kept', (retry) => {
    expect(resolveRetry(retry, { ...ctx, budget_left: 0 }, BEFORE)).toBe(retry);
  });

  it('recognises rules and nothing else', () => {
    expect(isRetryRule('rule_u')).toBe(true);
    expect(isRetryRule('backoff')).toBe(true);
    expect(isRetryRule('Rule U')).toBe(false);
    expect(isRetryRule(3)).toBe(false);
  });
});
