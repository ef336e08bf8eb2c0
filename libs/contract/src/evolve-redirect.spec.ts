import { describe, expect, it } from 'vitest';
import { AnomalyReason } from './anomaly.js';
import { Code } from './code.js';
import { EvidenceSource } from './evidence-source.js';
import { EventType } from './event-type.js';
import { evolve } from './evolve.js';
import { EventStream, testBinding } from './fixtures/event-builder.js';
import { initialState, type InvocationState } from './invocation-state.js';
import type { StoredEvent } from './journal-event.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Status } from './record-view.js';
import { Retry } from './retry.js';
import { DeferredRetry } from './retry-rule.js';
import { Stage } from './stage.js';
import { toRecordView } from './to-record-view.js';

// A redirect followed under `redirects: same_origin`: the 3xx attempt is
// committed, the invocation stays pending until its follow-up resolves, and
// nothing the follow-up does moves the outcome back.

const E = EventType;
const NOW = Date.parse('2026-11-29T18:10:00Z');

function fold(events: readonly StoredEvent[]): InvocationState {
  let state = initialState(events[0]!.invocation_id);
  for (const event of events) {
    const result = evolve(state, event);
    if (!result.ok) throw new Error(`${event.type}: ${result.anomaly.reason} ${result.anomaly.message}`);
    state = result.state;
  }
  return state;
}

function refusal(events: readonly StoredEvent[]): AnomalyReason {
  const last = events[events.length - 1]!;
  const result = evolve(fold(events.slice(0, -1)), last);
  if (result.ok) throw new Error(`${last.type} was accepted`);
  return result.anomaly.reason;
}

function dispatched(budget = 5): EventStream {
  const s = new EventStream();
  s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-1', action: 'http.request', command: {} }, { service: 'intake' });
  s.add(E.PREFLIGHT_VALIDATED, { binding: testBinding({ budget }), request_fingerprint: 'sha256:fp' });
  s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 3, injection: 'http_bearer' } });
  s.add(E.LEASE_ACQUIRED, { holder: 'd1' }, { attempt: 1, generation: 1 });
  s.add(E.DISPATCH_STARTED, { connect_try: 1, connection: { id: 'c-1', reused: false } }, { attempt: 1, generation: 1 });
  return s;
}

function committed3xx(s: EventStream, redirect: unknown = { status: 307, location: '/v1/next?x=1' }, attempt = 1): StoredEvent {
  // null: the event carries no data.redirect at all.
  return s.add(
    E.REMOTE_RESPONSE_COMPLETE,
    {
      outcome: Outcome.committed,
      code: null,
      retry_rule: Retry.never,
      stage: Stage.response_body,
      response_status: 307,
      response_digest: 'sha256:r1',
      result_object: 'act.1',
      ...(redirect === null ? {} : { redirect }),
    },
    { attempt, generation: attempt, source: EvidenceSource.remote_response },
  );
}

function followUp(s: EventStream, attempt = 2): EventStream {
  s.add(E.LEASE_ACQUIRED, { holder: 'd1' }, { attempt, generation: attempt });
  s.add(E.DISPATCH_STARTED, { connect_try: 1, connection: { id: 'c-2', reused: true } }, { attempt, generation: attempt });
  return s;
}

describe('evolve: a followed redirect', () => {
  it('the 3xx commits its attempt and leaves the invocation pending with the redirect to follow', () => {
    const s = dispatched();
    committed3xx(s);
    const state = fold(s.events);
    expect(state).toMatchObject({ outcome: Outcome.committed, status: Status.pending, code: null });
    expect(state.redirect).toEqual({ attempt: 1, status: 307, location: '/v1/next?x=1' });
    expect(state.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: Outcome.committed, code: null })]);
  });

  it('the follow-up dispatches as the next attempt and its 200 resolves the invocation', () => {
    const s = followUp((() => { const d = dispatched(); committed3xx(d); return d; })());
    const inFlight = fold(s.events);
    expect(inFlight).toMatchObject({ outcome: Outcome.committed, status: Status.pending, dispatches: 2, redirect: null });
    s.add(
      E.REMOTE_RESPONSE_COMPLETE,
      { outcome: Outcome.committed, code: null, retry_rule: Retry.never, response_status: 200, response_digest: 'sha256:r2', result_object: 'act.2' },
      { attempt: 2, generation: 2, source: EvidenceSource.remote_response },
    );
    const view = toRecordView(fold(s.events), NOW);
    expect(view).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, error: null });
    expect(view.evidence).toMatchObject({ attempt: 2, response_status: 200, response_digest: 'sha256:r2' });
    expect(view.attempts.map((a) => [a.attempt, a.outcome])).toEqual([
      [1, Outcome.committed],
      [2, Outcome.committed],
    ]);
  });

  it('a follow-up that times out keeps the outcome committed and shows its own error', () => {
    const s = dispatched();
    committed3xx(s);
    followUp(s);
    s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: DeferredRetry.rule_u }, { attempt: 2, generation: 2 });
    const view = toRecordView(fold(s.events), NOW);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.status).toBe(Status.resolved);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, phase: Phase.remote_execution, outcome: Outcome.committed });
    expect(view.attempts[1]).toMatchObject({ attempt: 2, outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN });
  });

  it('a follow-up whose connection fails for good ends resolved, committed, with the set-up error and unsent evidence', () => {
    const s = dispatched();
    committed3xx(s);
    s.add(E.LEASE_ACQUIRED, { holder: 'd1' }, { attempt: 2, generation: 2 });
    s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff, final: false }, { attempt: 2, generation: 2 });
    expect(fold(s.events).status).toBe(Status.pending);
    s.add(E.CONNECTION_FAILED, { connect_try: 2, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff, final: true }, { attempt: 2, generation: 2 });
    const state = fold(s.events);
    expect(state.redirect).toBeNull();
    const view = toRecordView(state, NOW);
    expect(view).toMatchObject({ status: Status.resolved, outcome: Outcome.committed });
    expect(view.error).toMatchObject({ code: Code.CONNECT_REFUSED, phase: Phase.connection_setup, outcome: Outcome.committed });
    expect(view.evidence).toMatchObject({ attempt: 2, connect_try: 2, stage: Stage.tcp_connect, dispatch_started: false });
    // And no third attempt may follow.
    s.add(E.DISPATCH_STARTED, { connect_try: 3 }, { attempt: 2, generation: 2 });
    expect(refusal(s.events)).toBe(AnomalyReason.after_final);
  });

  it('a follow-up refused by its re-check ends it without closing the invocation to later result events', () => {
    const s = dispatched();
    committed3xx(s);
    s.add(E.PREFLIGHT_REJECTED, { code: Code.BINDING_CHANGED, field: 'binding', message: 'changed' }, { attempt: 2, generation: 2 });
    const state = fold(s.events);
    expect(state).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, code: Code.BINDING_CHANGED, closed_before_dispatch: false });
    s.add(E.RESULT_COMMITTED, { result_digest: 'sha256:r1', result_object: 'act.1' }, { attempt: 1, generation: 1 });
    expect(fold(s.events).result).toEqual({ result_digest: 'sha256:r1', result_object: 'act.1' });
  });

  it('a cancel before the follow-up dispatch stops the chain; after it, the follow-up result is still classified', () => {
    const before = dispatched();
    committed3xx(before);
    before.add(E.CALLER_CANCELLED, { phase: Phase.connection_setup, dispatched: false }, { service: 'intake' });
    const stopped = fold(before.events);
    expect(stopped).toMatchObject({ cancelled: true, status: Status.resolved, outcome: Outcome.committed, code: Code.CALLER_CANCELLED, redirect: null });
    before.add(E.LEASE_ACQUIRED, { holder: 'd1' }, { attempt: 2, generation: 2 });
    expect(refusal(before.events)).toBe(AnomalyReason.after_final);

    const after = dispatched();
    committed3xx(after);
    followUp(after);
    after.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }, { service: 'intake' });
    expect(fold(after.events)).toMatchObject({ cancelled: true, status: Status.resolved, code: Code.CALLER_CANCELLED, outcome: Outcome.committed });
    after.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: Outcome.committed, code: null, retry_rule: Retry.never, response_status: 200 }, { attempt: 2, generation: 2 });
    expect(fold(after.events)).toMatchObject({ cancelled: true, code: null, outcome: Outcome.committed, status: Status.resolved });
  });

  it('without budget for a follow-up, or after a cancel, the 3xx is the last word', () => {
    const s = dispatched(1);
    committed3xx(s);
    expect(fold(s.events)).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, redirect: null });
    s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2, generation: 2 });
    expect(refusal(s.events)).toBe(AnomalyReason.after_final);

    const c = dispatched();
    c.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }, { service: 'intake' });
    committed3xx(c);
    expect(fold(c.events)).toMatchObject({ status: Status.resolved, redirect: null, cancelled: true });
  });

  it('without data.redirect a committed 3xx still ends the invocation, as under redirects: none', () => {
    const s = dispatched();
    committed3xx(s, null);
    expect(fold(s.events)).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, redirect: null });
  });

  it('refuses a redirect with an absolute or protocol-relative Location, and a follow-up that skips an attempt', () => {
    for (const location of ['http://evil.example/x', '//evil.example/x', 'x']) {
      const s = dispatched();
      committed3xx(s, { status: 302, location });
      expect(refusal(s.events)).toBe(AnomalyReason.malformed);
    }
    const s = dispatched();
    committed3xx(s);
    s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 3, generation: 3 });
    expect(refusal(s.events)).toBe(AnomalyReason.attempt_mismatch);
  });

  it('the later attempt result stands when the 3xx is settled after it', () => {
    const s = dispatched();
    committed3xx(s);
    followUp(s);
    s.add(E.REMOTE_RESPONSE_COMPLETE, { outcome: Outcome.committed, code: null, retry_rule: Retry.never, response_status: 200 }, { attempt: 2, generation: 2 });
    s.add(E.RESULT_COMMITTED, { result_digest: 'sha256:r2', result_object: 'act.2' }, { attempt: 2, generation: 2, service: 'delivery' });
    s.add(E.RESULT_COMMITTED, { result_digest: 'sha256:r1', result_object: 'act.1' }, { attempt: 1, generation: 1, service: 'delivery' });
    expect(fold(s.events).result).toEqual({ result_digest: 'sha256:r2', result_object: 'act.2' });
  });
});
