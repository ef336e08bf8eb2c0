import { describe, expect, it } from 'vitest';
import { Code } from './code.js';
import { decide, Verdict } from './decide.js';
import { EvidenceSource } from './evidence-source.js';
import { EventType } from './event-type.js';
import { evolve } from './evolve.js';
import { EventStream, testBinding } from './fixtures/event-builder.js';
import { initialState, type InvocationState } from './invocation-state.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import type { Binding } from './binding.js';
import { Retry } from './retry.js';
import { Stage } from './stage.js';
import { toRecordView } from './to-record-view.js';

const E = EventType;
const EXPIRES = '2026-11-30T17:00:00.000Z';
const BEFORE = Date.parse(EXPIRES) - 60_000;
const AFTER = Date.parse(EXPIRES) + 1;

function fold(s: EventStream): InvocationState {
  let state = initialState(s.invocationId);
  for (const event of s.events) {
    const r = evolve(state, event);
    if (!r.ok) throw new Error(`${event.type}: ${r.anomaly.message}`);
    state = r.state;
  }
  return state;
}

function upToDispatch(binding: Binding, dispatches = 1): EventStream {
  const s = new EventStream();
  s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-7f3a' });
  s.add(E.PREFLIGHT_VALIDATED, { binding, request_fingerprint: 'sha256:8b1' });
  s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 3, injection: 'http_bearer' } });
  for (let a = 1; a <= dispatches; a++) {
    if (a > 1) s.add(E.RETRY_SCHEDULED, { reason: 'test', unsafe: false });
    s.add(E.DISPATCH_STARTED, { connect_try: 1, connection: { id: `c-${a}`, reused: a > 1 } }, { attempt: a, generation: a });
    s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, { attempt: a, generation: a });
  }
  return s;
}

const contractBinding = testBinding({
  idempotency: { key: 'charge-1', scope: 'payments.create', header: 'Idempotency-Key', expires_at: EXPIRES, remote_contract: 'configured' },
});

describe('toRecordView: retry changes with the clock and the budget', () => {
  it('Rule U under a contract is same_idempotency_key before expiry, reconcile after', () => {
    const state = fold(upToDispatch(contractBinding));
    expect(toRecordView(state, BEFORE).error?.retry).toBe(Retry.same_idempotency_key);
    expect(toRecordView(state, AFTER).error?.retry).toBe(Retry.reconcile);
  });

  it('and decide follows: same key before expiry with the same fingerprint, reconcile after', () => {
    const state = fold(upToDispatch(contractBinding));
    expect(decide(toRecordView(state, BEFORE), { fingerprint: 'sha256:8b1' }, BEFORE)).toBe(Verdict.RETRY_SAME_KEY);
    expect(decide(toRecordView(state, AFTER), { fingerprint: 'sha256:8b1' }, AFTER)).toBe(Verdict.RECONCILE);
  });

  it('known idempotent is backoff until the budget is spent, then reconcile', () => {
    const binding = testBinding({ known_idempotent: true, budget: 2 });
    const one = toRecordView(fold(upToDispatch(binding, 1)), BEFORE);
    expect(one.error?.retry).toBe(Retry.backoff);
    expect(one.evidence.budget_left).toBe(1);
    const two = toRecordView(fold(upToDispatch(binding, 2)), BEFORE);
    expect(two.error?.retry).toBe(Retry.reconcile);
    expect(two.evidence.budget_left).toBe(0);
    expect(decide(two, {}, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it('without idempotency Rule U is reconcile', () => {
    expect(toRecordView(fold(upToDispatch(testBinding())), BEFORE).error?.retry).toBe(Retry.reconcile);
  });
});

describe('toRecordView: shape', () => {
  it('an unknown record has the contract shape', () => {
    const view = toRecordView(fold(upToDispatch(contractBinding)), BEFORE);
    expect(view).toEqual({
      invocation_id: 'act_01JD0000000000000000000000',
      client_request_id: 'req-7f3a',
      status: 'resolved',
      outcome: 'unknown',
      cancelled: false,
      delivered: false,
      error: {
        code: 'REMOTE_OUTCOME_UNKNOWN',
        phase: 'remote_execution',
        outcome: 'unknown',
        retry: 'same_idempotency_key',
        message: 'The request was sent, but no complete response was recorded.',
      },
      result: null,
      evidence: {
        source: 'transport_observed',
        stage: 'response_headers',
        dispatch_started: true,
        request_headers_sent: false,
        request_complete: false,
        response_headers_received: false,
        response_complete: false,
        attempt: 1,
        connect_try: 1,
        generation: 1,
        dispatch_seq: 103,
        budget_left: 4,
        known_idempotent: false,
        request_fingerprint: 'sha256:8b1',
        credential: { id: 'payments-api', version: 3, injection: 'http_bearer' },
        connection: { id: 'c-1', reused: false },
        idempotency: { key: 'charge-1', scope: 'payments.create', fingerprint: 'sha256:8b1', remote_contract: 'configured', expires_at: EXPIRES },
      },
      attempts: [{ attempt: 1, connect_try: 1, stage: 'response_headers', outcome: 'unknown', code: 'REMOTE_OUTCOME_UNKNOWN' }],
      journal: { first_seq: 100, last_seq: 104, events: 5 },
    });
  });

  it('a committed record without error has error null', () => {
    const s = upToDispatch(testBinding());
    s.events.pop();
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: 'committed', code: null, retry_rule: 'never', stage: 'response_body', response_status: 200 }, { attempt: 1, source: EvidenceSource.remote_response });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toBeNull();
    expect(view.outcome).toBe(Outcome.committed);
    expect(decide(view, {}, BEFORE)).toBe(Verdict.RETURN_RECORDED_RESULT);
  });

  it('a validation record carries the field and no credential', () => {
    const s = new EventStream();
    s.add(E.ACTION_ACCEPTED, { client_request_id: 'r', command: null });
    s.add(E.PREFLIGHT_REJECTED, { code: Code.INVALID_TARGET, field: 'http.url', message: 'http.url must be an absolute http or https URL.' });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toEqual({
      code: Code.INVALID_TARGET,
      phase: Phase.validation,
      outcome: Outcome.not_attempted,
      retry: Retry.after_correction,
      message: 'http.url must be an absolute http or https URL.',
      field: 'http.url',
    });
    expect(view.evidence.credential).toBeNull();
    expect(view.status).toBe('resolved');
    expect(decide(view, {}, BEFORE)).toBe(Verdict.STOP_FOR_CORRECTION);
  });

  it('VAULT_LOCKED names the operator action', () => {
    const s = new EventStream();
    s.add(E.ACTION_ACCEPTED, { client_request_id: 'r' });
    s.add(E.PREFLIGHT_VALIDATED, { binding: testBinding(), request_fingerprint: 'f' });
    s.add(E.CREDENTIAL_REJECTED, { code: Code.VAULT_LOCKED });
    expect(toRecordView(fold(s), BEFORE).error).toMatchObject({ code: Code.VAULT_LOCKED, action_required: 'vault_unlock', phase: Phase.credential_injection });
  });

  it('a connection failure on the last try is backoff and decide retries a new attempt', () => {
    const s = new EventStream();
    s.add(E.ACTION_ACCEPTED, { client_request_id: 'r' });
    s.add(E.PREFLIGHT_VALIDATED, { binding: testBinding({ connect_attempts: 1 }), request_fingerprint: 'f' });
    s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff }, { attempt: 1 });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toMatchObject({ code: Code.CONNECT_REFUSED, phase: Phase.connection_setup, retry: Retry.backoff });
    expect(view.attempts).toEqual([{ attempt: 1, connect_try: 1, stage: 'tcp_connect', outcome: 'not_attempted', code: 'CONNECT_REFUSED' }]);
    expect(decide(view, {}, BEFORE)).toBe(Verdict.RETRY_NEW_ATTEMPT);
  });

  it('a failed delivery shows RESULT_DELIVERY_FAILED with fetch_result and keeps the outcome', () => {
    const s = upToDispatch(testBinding());
    s.events.pop();
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: 'committed', code: null, retry_rule: 'never', stage: 'response_body' }, { attempt: 1 });
    s.add(E.RESULT_COMMITTED, { result_digest: 'sha256:r', result_object: 'o' });
    s.add(E.RESULT_DELIVERY_FAILED, { reason: 'x' });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toMatchObject({ code: Code.RESULT_DELIVERY_FAILED, phase: Phase.result_delivery, outcome: Outcome.committed, retry: Retry.fetch_result });
    expect(view.result).toEqual({ result_digest: 'sha256:r', result_object: 'o' });
    expect(decide(view, {}, BEFORE)).toBe(Verdict.FETCH);
  });

  it('Retry-After is shown on a rate-limited record', () => {
    const s = upToDispatch(testBinding({ known_idempotent: true }));
    s.events.pop();
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: 'rejected', code: Code.RATE_LIMITED, retry_rule: 'rule_r', stage: 'response_body', response_status: 429, retry_after_ms: 5000 }, { attempt: 1 });
    const view = toRecordView(fold(s), BEFORE);
    expect(view.error).toMatchObject({ code: Code.RATE_LIMITED, retry: Retry.backoff, retry_after_ms: 5000 });
    expect(decide(view, {}, BEFORE)).toBe(Verdict.RETRY_WHEN_ALLOWED);
  });

  it('a cancelled dispatch reads cancelled, unknown, CALLER_CANCELLED', () => {
    const s = upToDispatch(testBinding());
    s.events.pop();
    s.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true });
    const view = toRecordView(fold(s), BEFORE);
    expect(view).toMatchObject({ cancelled: true, outcome: Outcome.unknown, status: 'resolved' });
    expect(view.error).toMatchObject({ code: Code.CALLER_CANCELLED, retry: Retry.reconcile });
  });

  it('the assertion is shown where the caller made one', () => {
    const view = toRecordView(fold(upToDispatch(testBinding({ idempotent_assertion: 'ignored' }))), BEFORE);
    expect(view.evidence.idempotent_assertion).toBe('ignored');
  });
});
