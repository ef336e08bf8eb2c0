import { describe, expect, it } from 'vitest';
import type { Binding } from './binding.js';
import { Code } from './code.js';
import { decide, Verdict } from './decide.js';
import { EventType } from './event-type.js';
import { evolve } from './evolve.js';
import { EventStream, testBinding } from './fixtures/event-builder.js';
import { initialState, type InvocationState } from './invocation-state.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Retry } from './retry.js';
import { Stage } from './stage.js';
import { toRecordView } from './to-record-view.js';

// CONTRACT.md section 6, "dispatch budget of the invocation spent": each
// condition of the rule is checked from both sides.

const E = EventType;
const EXPIRES = '2026-11-30T17:00:00.000Z';
const BEFORE = Date.parse(EXPIRES) - 60_000;
const AFTER = Date.parse(EXPIRES) + 1;
const FP = 'sha256:8b1';

function fold(s: EventStream): InvocationState {
  let state = initialState(s.invocationId);
  for (const event of s.events) {
    const r = evolve(state, event);
    if (!r.ok) throw new Error(`${event.type}: ${r.anomaly.message}`);
    state = r.state;
  }
  return state;
}

function bound(binding: Binding): EventStream {
  const s = new EventStream();
  s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-b' });
  s.add(E.PREFLIGHT_VALIDATED, { binding, request_fingerprint: FP });
  s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 3, injection: 'http_bearer' } });
  return s;
}

function start(s: EventStream, attempt: number): void {
  if (attempt > 1) s.add(E.RETRY_SCHEDULED, { reason: Verdict.RETRY_NEW_ATTEMPT, unsafe: false }, { attempt: attempt - 1, generation: attempt - 1 });
  s.add(E.DISPATCH_STARTED, { connect_try: 1, connection: { id: `c-${attempt}`, reused: false } }, { attempt, generation: attempt });
}

function unknownAttempt(s: EventStream, attempt: number): void {
  start(s, attempt);
  s.add(
    E.REMOTE_OUTCOME_UNKNOWN,
    { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers, request_headers_sent: true, request_complete: true },
    { attempt, generation: attempt },
  );
}

function unknowns(binding: Binding, count: number): EventStream {
  const s = bound(binding);
  for (let a = 1; a <= count; a++) unknownAttempt(s, a);
  return s;
}

function rateLimited(binding: Binding, count: number): EventStream {
  const s = bound(binding);
  for (let a = 1; a <= count; a++) {
    start(s, a);
    s.add(
      E.REMOTE_RESPONSE_COMPLETE,
      { outcome: 'rejected', code: Code.RATE_LIMITED, retry_rule: 'rule_r', stage: Stage.response_body, response_status: 429, retry_after_ms: 1000 },
      { attempt: a, generation: a },
    );
  }
  return s;
}

const idempotent = (budget: number): Binding => testBinding({ known_idempotent: true, method: 'GET', budget });
const underContract = (budget: number): Binding =>
  testBinding({
    budget,
    idempotency: { key: 'charge-1', scope: 'payments.create', header: 'Idempotency-Key', expires_at: EXPIRES, remote_contract: 'configured' },
  });

describe('toRecordView: RETRY_BUDGET_EXHAUSTED', () => {
  it('a known idempotent request whose every dispatch was unknown: the budget is the error, the last evidence kept', () => {
    const view = toRecordView(fold(unknowns(idempotent(3), 3)), BEFORE);
    expect(view.status).toBe('resolved');
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toEqual({
      code: Code.RETRY_BUDGET_EXHAUSTED,
      phase: Phase.remote_execution,
      outcome: Outcome.unknown,
      retry: Retry.reconcile,
      message: 'The dispatch budget of this action is spent.',
    });
    expect(view.evidence).toMatchObject({
      attempt: 3,
      generation: 3,
      dispatch_started: true,
      request_headers_sent: true,
      request_complete: true,
      budget_left: 0,
      stage: Stage.response_headers,
    });
    expect(view.evidence.connection?.id).toBe('c-3');
    expect(view.attempts.map((r) => [r.attempt, r.outcome, r.code])).toEqual([
      [1, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
      [2, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
      [3, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN],
    ]);
    expect(decide(view, { fingerprint: FP }, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it('with budget left the attempt keeps its own code and a backoff', () => {
    const view = toRecordView(fold(unknowns(idempotent(3), 2)), BEFORE);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.backoff });
    expect(view.evidence.budget_left).toBe(1);
  });

  it('while the last dispatch is still in flight there is no error yet', () => {
    const s = unknowns(idempotent(3), 2);
    start(s, 3);
    const view = toRecordView(fold(s), BEFORE);
    expect(view.status).toBe('pending');
    expect(view.error).toBeNull();
  });

  it('with no dispatch made nothing is spent: a refused connection keeps its code', () => {
    const s = bound(testBinding({ known_idempotent: true, connect_attempts: 1, budget: 1 }));
    s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff }, { attempt: 1 });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toMatchObject({ code: Code.CONNECT_REFUSED, phase: Phase.connection_setup, retry: Retry.backoff });
  });

  it('a cancel after dispatch stays CALLER_CANCELLED', () => {
    const s = bound(idempotent(1));
    start(s, 1);
    s.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.evidence.budget_left).toBe(0);
    expect(view.error).toMatchObject({ code: Code.CALLER_CANCELLED, retry: Retry.reconcile });
  });

  it('a rejected record that would back off is exhausted too, its outcome and Retry-After kept', () => {
    const view = toRecordView(fold(rateLimited(idempotent(2), 2)), BEFORE);
    expect(view.outcome).toBe(Outcome.rejected);
    expect(view.error).toMatchObject({
      code: Code.RETRY_BUDGET_EXHAUSTED,
      phase: Phase.remote_execution,
      outcome: Outcome.rejected,
      retry: Retry.reconcile,
      retry_after_ms: 1000,
    });
    expect(view.evidence.response_status).toBe(429);
  });

  it('a rejected record that needs a correction keeps its code', () => {
    const s = bound(idempotent(1));
    start(s, 1);
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: 'rejected', code: Code.REMOTE_REJECTED, retry_rule: Retry.after_correction, stage: Stage.response_body, response_status: 400 }, { attempt: 1, generation: 1 });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toMatchObject({ code: Code.REMOTE_REJECTED, retry: Retry.after_correction });
  });

  it('a committed record has no error, spent budget or not', () => {
    const s = bound(idempotent(1));
    start(s, 1);
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: 'committed', code: null, retry_rule: Retry.never, stage: Stage.response_body, response_status: 200 }, { attempt: 1, generation: 1 });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.evidence.budget_left).toBe(0);
    expect(view.error).toBeNull();
  });

  it('an unknown that is reconcile anyway (no idempotency) keeps REMOTE_OUTCOME_UNKNOWN', () => {
    const view = toRecordView(fold(unknowns(testBinding({ budget: 1 }), 1)), BEFORE);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.reconcile });
  });

  it('under a contract: exhausted while the key could be reused, the plain unknown once it expired', () => {
    const state = fold(unknowns(underContract(2), 2));
    expect(toRecordView(state, BEFORE).error).toMatchObject({ code: Code.RETRY_BUDGET_EXHAUSTED, retry: Retry.reconcile });
    expect(toRecordView(state, AFTER).error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.reconcile });
    const spare = fold(unknowns(underContract(3), 2));
    expect(toRecordView(spare, BEFORE).error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.same_idempotency_key });
  });
});
