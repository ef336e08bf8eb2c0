import { describe, expect, it } from 'vitest';
import { Code } from './code.js';
import { decide, Verdict } from './decide.js';
import { EvidenceSource } from './evidence-source.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import type { RecordView } from './record-view.js';
import { Retry } from './retry.js';
import { Stage } from './stage.js';

const EXPIRES = '2026-11-30T17:00:00.000Z';
const BEFORE = Date.parse(EXPIRES) - 1000;
const FP = 'sha256:8b1';

function record(outcome: Outcome, retry: Retry | null, evidence: Partial<RecordView['evidence']> = {}): RecordView {
  return {
    invocation_id: 'act_X',
    client_request_id: 'req-1',
    status: 'resolved',
    outcome,
    cancelled: false,
    delivered: false,
    error:
      retry === null
        ? null
        : { code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, outcome, retry, message: 'm' },
    result: null,
    evidence: {
      source: EvidenceSource.transport_observed,
      stage: Stage.response_headers,
      dispatch_started: true,
      request_headers_sent: true,
      request_complete: true,
      response_headers_received: false,
      response_complete: false,
      attempt: 1,
      connect_try: 1,
      generation: 1,
      dispatch_seq: 10,
      budget_left: 3,
      known_idempotent: false,
      request_fingerprint: FP,
      credential: null,
      idempotency: { key: 'k', scope: 's', fingerprint: FP, remote_contract: 'configured', expires_at: EXPIRES },
      ...evidence,
    },
    attempts: [],
    journal: { first_seq: 1, last_seq: 2, events: 2 },
  };
}

describe('decide', () => {
  it('fetch_result comes first, whatever the outcome', () => {
    expect(decide(record(Outcome.committed, Retry.fetch_result, { intervention_required: true }), {}, BEFORE)).toBe(Verdict.FETCH);
  });

  it('a record that needs an operator returns the recorded result', () => {
    expect(decide(record(Outcome.unknown, Retry.never, { intervention_required: true }), {}, BEFORE)).toBe(Verdict.RETURN_RECORDED_RESULT);
  });

  it('not attempted with backoff retries as a new attempt', () => {
    expect(decide(record(Outcome.not_attempted, Retry.backoff), {}, BEFORE)).toBe(Verdict.RETRY_NEW_ATTEMPT);
  });

  it.each([Retry.after_correction, Retry.never])('not attempted with %s stops for correction', (retry) => {
    expect(decide(record(Outcome.not_attempted, retry), {}, BEFORE)).toBe(Verdict.STOP_FOR_CORRECTION);
  });

  it('unknown with no budget left reconciles, even if known idempotent', () => {
    expect(decide(record(Outcome.unknown, Retry.backoff, { budget_left: 0, known_idempotent: true }), {}, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it('unknown and known idempotent retries as a new attempt', () => {
    expect(decide(record(Outcome.unknown, Retry.backoff, { known_idempotent: true }), {}, BEFORE)).toBe(Verdict.RETRY_NEW_ATTEMPT);
  });

  it('unknown with same_idempotency_key, same fingerprint, before expiry retries with the same key', () => {
    expect(decide(record(Outcome.unknown, Retry.same_idempotency_key), { fingerprint: FP }, BEFORE)).toBe(Verdict.RETRY_SAME_KEY);
  });

  it('a different fingerprint may not reuse the key', () => {
    expect(decide(record(Outcome.unknown, Retry.same_idempotency_key), { fingerprint: 'sha256:other' }, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it('no fingerprint may not reuse the key', () => {
    expect(decide(record(Outcome.unknown, Retry.same_idempotency_key), {}, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it('at or after expiry the key may not be reused', () => {
    expect(decide(record(Outcome.unknown, Retry.same_idempotency_key), { fingerprint: FP }, Date.parse(EXPIRES))).toBe(Verdict.RECONCILE);
  });

  it('unknown otherwise reconciles', () => {
    expect(decide(record(Outcome.unknown, Retry.reconcile), { fingerprint: FP }, BEFORE)).toBe(Verdict.RECONCILE);
  });

  it.each([Retry.backoff, Retry.same_idempotency_key])('rejected with %s retries when allowed', (retry) => {
    expect(decide(record(Outcome.rejected, retry), {}, BEFORE)).toBe(Verdict.RETRY_WHEN_ALLOWED);
  });

  it.each([Retry.after_correction, Retry.reconcile, Retry.never])('rejected with %s returns the recorded result', (retry) => {
    expect(decide(record(Outcome.rejected, retry), {}, BEFORE)).toBe(Verdict.RETURN_RECORDED_RESULT);
  });

  it('committed without error returns the recorded result', () => {
    expect(decide(record(Outcome.committed, null), {}, BEFORE)).toBe(Verdict.RETURN_RECORDED_RESULT);
  });

  it('committed with an error response returns the recorded result even with backoff', () => {
    expect(decide(record(Outcome.committed, Retry.backoff), {}, BEFORE)).toBe(Verdict.RETURN_RECORDED_RESULT);
  });
});
