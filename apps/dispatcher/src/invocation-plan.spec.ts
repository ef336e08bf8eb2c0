import { describe, expect, it } from 'vitest';
import { Code, EventType, Outcome, Phase } from '@postern/contract';
import { fingerprintOf, fixtureBinding, HistoryBuilder } from './binding.fixture.js';
import { foldHistory, hasCancel, openAttempt, planInvocation } from './invocation-plan.js';

describe('planInvocation', () => {
  it('skips an invocation with no journal', () => {
    expect(planInvocation([])).toEqual({ kind: 'skip', reason: 'unknown_invocation' });
  });

  it('skips a validated invocation whose credential is not authorized yet', () => {
    const binding = fixtureBinding();
    const h = new HistoryBuilder()
      .add(EventType.ACTION_ACCEPTED, { client_request_id: 'r' })
      .add(EventType.PREFLIGHT_VALIDATED, { binding, request_fingerprint: fingerprintOf(binding) });
    expect(planInvocation(h.events)).toEqual({ kind: 'skip', reason: 'not_authorized' });
  });

  it('dispatches attempt 1 of an authorized invocation, with its binding, fingerprint and deadline', () => {
    const binding = fixtureBinding();
    const plan = planInvocation(new HistoryBuilder().authorized(binding, '2026-11-29T18:00:30.000Z').events);
    expect(plan.kind).toBe('dispatch');
    if (plan.kind !== 'dispatch') return;
    expect(plan.attempt).toBe(1);
    expect(plan.binding).toEqual(binding);
    expect(plan.fingerprint).toBe(fingerprintOf(binding));
    expect(plan.deadline_at).toBe('2026-11-29T18:00:30.000Z');
  });

  it('still dispatches attempt 1 after a lease taken and a connection try that was not final', () => {
    const h = new HistoryBuilder()
      .authorized()
      .add(EventType.LEASE_ACQUIRED, { holder: 'd-1' }, 1, 1)
      .add(EventType.CONNECTION_FAILED, { connect_try: 1, stage: 'tcp_connect', code: Code.CONNECT_REFUSED, retry_rule: 'backoff', final: false }, 1, 1);
    const plan = planInvocation(h.events);
    expect(plan).toMatchObject({ kind: 'dispatch', attempt: 1 });
  });

  it('skips once the last connection try was final', () => {
    const h = new HistoryBuilder()
      .authorized()
      .add(EventType.CONNECTION_FAILED, { connect_try: 1, stage: 'dns', code: Code.DNS_FAILED, retry_rule: 'after_correction', final: true }, 1, 1);
    expect(planInvocation(h.events)).toEqual({ kind: 'skip', reason: 'resolved' });
  });

  it('recovers, never re-dispatches, an attempt that crossed DISPATCH_STARTED without a verdict', () => {
    const h = new HistoryBuilder().authorized().dispatched(1, 1).add(EventType.REQUEST_SENT, { request_headers_sent: true, request_complete: true }, 1, 1);
    expect(planInvocation(h.events)).toMatchObject({ kind: 'recover', attempt: 1 });
  });

  it('still recovers an open attempt after the caller cancelled it', () => {
    const h = new HistoryBuilder().authorized().dispatched().add(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }, 1, 1);
    expect(planInvocation(h.events)).toMatchObject({ kind: 'recover', attempt: 1 });
  });

  it('skips a committed invocation', () => {
    const h = new HistoryBuilder()
      .authorized()
      .dispatched()
      .add(EventType.REMOTE_RESPONSE_COMPLETE, { outcome: Outcome.committed, code: null, retry_rule: 'never', stage: 'response_body' }, 1, 1);
    expect(planInvocation(h.events)).toEqual({ kind: 'skip', reason: 'committed' });
  });

  it('skips an attempt already resolved as unknown', () => {
    const h = new HistoryBuilder()
      .authorized()
      .dispatched()
      .add(EventType.REMOTE_OUTCOME_UNKNOWN, { outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u' }, 1, 1);
    expect(planInvocation(h.events)).toEqual({ kind: 'skip', reason: 'resolved' });
  });

  it('skips an invocation cancelled or refused before dispatch', () => {
    const cancelled = new HistoryBuilder().authorized().add(EventType.CALLER_CANCELLED, { phase: Phase.connection_setup, dispatched: false });
    expect(planInvocation(cancelled.events)).toEqual({ kind: 'skip', reason: 'closed' });
    const refused = new HistoryBuilder().authorized().add(EventType.CREDENTIAL_REJECTED, { code: Code.VAULT_LOCKED });
    expect(planInvocation(refused.events)).toEqual({ kind: 'skip', reason: 'closed' });
  });
});

describe('openAttempt and hasCancel', () => {
  it('names the dispatched attempt without a verdict', () => {
    const h = new HistoryBuilder().authorized().dispatched(1, 3);
    expect(openAttempt(foldHistory(h.events)!)).toBe(1);
    expect(hasCancel(h.events)).toBe(false);
    h.add(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }, 1, 3);
    expect(hasCancel(h.events)).toBe(true);
    h.add(EventType.RECOVERY_OBSERVED, { outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', recovered: true }, 1, 4);
    expect(openAttempt(foldHistory(h.events)!)).toBeNull();
  });
});
