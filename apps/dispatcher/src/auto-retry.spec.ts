import { describe, expect, it } from 'vitest';
import { autoRetryOf, backoffMs, Code, EventType, Phase, retryNotBefore, Stage, Verdict, type Binding } from '@postern/contract';
import { fixtureBinding, fixtureCommand, fixturePolicy, HistoryBuilder } from './binding.fixture.js';
import { foldHistory } from './invocation-plan.js';

const NOW = Date.parse('2026-11-29T18:00:05.000Z');

const policyYaml = (autoRetry: boolean, budget: number): string => `targets:
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET]
dispatch:
  connect_attempts: 2
  budget: ${budget}
  auto_retry: ${autoRetry}
  lease_ms: 3000
`;

function getBinding(autoRetry = true, budget = 3): Binding {
  return fixtureBinding(fixtureCommand(), fixturePolicy(policyYaml(autoRetry, budget)));
}

/** A POST to an origin whose policy has no contract; a test adds one to the binding where it needs it. */
function postBinding(): Binding {
  const command = fixtureCommand();
  return fixtureBinding({ ...command, http: { ...command.http!, method: 'POST' } }, fixturePolicy(policyYaml(true, 3)));
}

function unknownAfter(h: HistoryBuilder, attempt: number, generation = attempt): HistoryBuilder {
  return h
    .dispatched(attempt, generation)
    .add(EventType.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, attempt, generation);
}

function stateOf(h: HistoryBuilder) {
  const state = foldHistory(h.events);
  if (state === null) throw new Error('empty history');
  return state;
}

describe('autoRetryOf', () => {
  it('an unknown GET (known idempotent) with budget left is retried as a new attempt after a backoff', () => {
    const retry = autoRetryOf(stateOf(unknownAfter(new HistoryBuilder().authorized(getBinding()), 1)), NOW);
    expect(retry).toEqual({
      attempt: 1,
      generation: 1,
      data: { reason: Verdict.RETRY_NEW_ATTEMPT, unsafe: false, not_before: new Date(NOW + 200).toISOString() },
    });
  });

  it('the backoff grows with the attempt', () => {
    const h = unknownAfter(new HistoryBuilder().authorized(getBinding(true, 5)), 1).add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false }, 1, 1);
    const retry = autoRetryOf(stateOf(unknownAfter(h, 2)), NOW);
    expect(retry?.attempt).toBe(2);
    expect(retry?.data.not_before).toBe(new Date(NOW + 400).toISOString());
  });

  it('never without auto_retry in the binding', () => {
    expect(autoRetryOf(stateOf(unknownAfter(new HistoryBuilder().authorized(getBinding(false)), 1)), NOW)).toBeNull();
  });

  it('never once the budget is spent', () => {
    const h = unknownAfter(new HistoryBuilder().authorized(getBinding(true, 2)), 1).add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false }, 1, 1);
    expect(autoRetryOf(stateOf(unknownAfter(h, 2)), NOW)).toBeNull();
  });

  it('never while the retry is already scheduled (the record is pending)', () => {
    const h = unknownAfter(new HistoryBuilder().authorized(getBinding()), 1).add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false }, 1, 1);
    expect(autoRetryOf(stateOf(h), NOW)).toBeNull();
  });

  it('never after a cancel', () => {
    const h = new HistoryBuilder().authorized(getBinding()).dispatched(1, 1).add(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true });
    expect(autoRetryOf(stateOf(h), NOW)).toBeNull();
  });

  it('never after a commit', () => {
    const h = new HistoryBuilder()
      .authorized(getBinding())
      .dispatched(1, 1)
      .add(EventType.REMOTE_RESPONSE_COMPLETE, { outcome: 'committed', code: null, retry_rule: 'never', stage: Stage.response_body, response_status: 200 }, 1, 1);
    expect(autoRetryOf(stateOf(h), NOW)).toBeNull();
  });

  it('never for an attempt that did not dispatch: its connection tries were the retries', () => {
    const h = new HistoryBuilder()
      .authorized(getBinding())
      .add(EventType.CONNECTION_FAILED, { connect_try: 2, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: 'backoff', final: true }, 1, 1);
    expect(autoRetryOf(stateOf(h), NOW)).toBeNull();
    const later = unknownAfter(new HistoryBuilder().authorized(getBinding()), 1)
      .add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false }, 1, 1)
      .add(EventType.CONNECTION_FAILED, { connect_try: 2, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: 'backoff', final: true }, 2, 2);
    expect(stateOf(later).status).toBe('resolved');
    expect(autoRetryOf(stateOf(later), NOW)).toBeNull();
  });

  it('never for an unknown POST without a contract: decide() says reconcile', () => {
    expect(autoRetryOf(stateOf(unknownAfter(new HistoryBuilder().authorized(postBinding()), 1)), NOW)).toBeNull();
  });

  it('an unknown POST under a contract is retried with the same key while the key lasts', () => {
    const idempotency = { key: 'k-1', scope: 's', header: 'Idempotency-Key', expires_at: '2026-11-30T18:00:00.000Z', remote_contract: 'configured' as const };
    const binding: Binding = { ...postBinding(), idempotency };
    const state = stateOf(unknownAfter(new HistoryBuilder().authorized(binding), 1));
    expect(autoRetryOf(state, NOW)?.data.reason).toBe(Verdict.RETRY_SAME_KEY);
    expect(autoRetryOf(state, Date.parse('2026-11-30T18:00:01.000Z'))).toBeNull();
  });

  it('a 429 is retried when allowed, no sooner than its Retry-After', () => {
    const h = new HistoryBuilder()
      .authorized(getBinding())
      .dispatched(1, 1)
      .add(
        EventType.REMOTE_RESPONSE_COMPLETE,
        { outcome: 'rejected', code: Code.RATE_LIMITED, retry_rule: 'rule_r', stage: Stage.response_body, response_status: 429, retry_after_ms: 1000 },
        1,
        1,
      );
    expect(autoRetryOf(stateOf(h), NOW)?.data).toEqual({ reason: Verdict.RETRY_WHEN_ALLOWED, unsafe: false, not_before: new Date(NOW + 1000).toISOString() });
  });

  it('a recovered attempt is retried like an unknown one, under the recovery generation', () => {
    const h = new HistoryBuilder()
      .authorized(getBinding())
      .dispatched(1, 1)
      .add(EventType.RECOVERY_OBSERVED, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, 1, 2);
    expect(autoRetryOf(stateOf(h), NOW)).toMatchObject({ attempt: 1, data: { reason: Verdict.RETRY_NEW_ATTEMPT } });
  });
});

describe('backoffMs', () => {
  it('doubles from 200 ms and stops at 10 s', () => {
    expect([1, 2, 3, 4, 6, 7, 50].map(backoffMs)).toEqual([200, 400, 800, 1600, 6400, 10_000, 10_000]);
  });
});

describe('retryNotBefore', () => {
  it('is the time of a retry no dispatch has followed yet', () => {
    const h = unknownAfter(new HistoryBuilder().authorized(getBinding()), 1);
    expect(retryNotBefore(h.events)).toBeNull();
    h.add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false, not_before: '2026-11-29T18:00:06.000Z' }, 1, 1);
    expect(retryNotBefore(h.events)).toBe(Date.parse('2026-11-29T18:00:06.000Z'));
    h.dispatched(2, 2);
    expect(retryNotBefore(h.events)).toBeNull();
  });

  it('a retry without a time does not wait', () => {
    const h = unknownAfter(new HistoryBuilder().authorized(getBinding()), 1).add(EventType.RETRY_SCHEDULED, { reason: 'x', unsafe: false }, 1, 1);
    expect(retryNotBefore(h.events)).toBeNull();
  });
});
