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
import { Retry } from './retry.js';
import { DeferredRetry } from './retry-rule.js';
import { Stage } from './stage.js';

const E = EventType;

function fold(events: StoredEvent[]): InvocationState {
  let state = initialState(events[0]?.invocation_id ?? 'act_01JD0000000000000000000000');
  for (const event of events) {
    const result = evolve(state, event);
    if (!result.ok) throw new Error(`${event.type}: ${result.anomaly.reason} ${result.anomaly.message}`);
    state = result.state;
  }
  return state;
}

/** Given the events of `given`, when `when` is applied, then the result. */
function when(given: EventStream, build: (s: EventStream) => StoredEvent) {
  const state = fold(given.events);
  const event = build(given);
  return { before: state, result: evolve(state, event) };
}

function accepted(): EventStream {
  const s = new EventStream();
  s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-1', caller: 'agent', action: 'http.request', command_digest: 'sha256:c', command: {}, deadline_at: null }, { service: 'intake' });
  return s;
}

function validated(binding = testBinding()): EventStream {
  const s = accepted();
  s.add(E.PREFLIGHT_VALIDATED, { binding, request_fingerprint: 'sha256:fp' });
  return s;
}

function authorized(binding = testBinding()): EventStream {
  const s = validated(binding);
  s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 3, injection: 'http_bearer' } });
  s.add(E.LEASE_ACQUIRED, { holder: 'd1', expires_at: '2026-11-29T18:01:00Z' }, { attempt: 1, generation: 1 });
  return s;
}

function dispatched(binding = testBinding()): EventStream {
  const s = authorized(binding);
  s.add(E.DISPATCH_STARTED, { connect_try: 1, connection: { id: 'c-1', reused: false, remote_address: '10.0.0.5:443' } }, { attempt: 1, generation: 1 });
  return s;
}

function complete(s: EventStream, outcome: Outcome, code: Code | null, retry_rule: string, extra: Record<string, unknown> = {}, attempt = 1) {
  return s.add(
    E.REMOTE_RESPONSE_COMPLETE,
    { outcome, code, retry_rule, stage: Stage.response_body, response_status: 201, response_digest: 'sha256:r', ...extra },
    { attempt, generation: attempt, source: EvidenceSource.remote_response },
  );
}

function ok(result: ReturnType<typeof evolve>): InvocationState {
  if (!result.ok) throw new Error(`unexpected anomaly ${result.anomaly.reason}: ${result.anomaly.message}`);
  return result.state;
}

function anomaly(result: ReturnType<typeof evolve>): AnomalyReason {
  if (result.ok) throw new Error('expected an anomaly');
  return result.anomaly.reason;
}

describe('evolve: an empty invocation', () => {
  it('ACTION_ACCEPTED starts it, pending in validation', () => {
    const state = ok(when(new EventStream(), (s) => s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-1' })).result);
    expect(state).toMatchObject({ accepted: true, client_request_id: 'req-1', status: 'pending', outcome: Outcome.not_attempted, phase: Phase.validation });
    expect(state.journal).toEqual({ first_seq: 100, last_seq: 100, events: 1 });
  });

  it('refuses any other first event', () => {
    expect(anomaly(when(new EventStream(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 1 })).result)).toBe(AnomalyReason.not_accepted_first);
  });

  it('refuses ACTION_ACCEPTED without a client_request_id', () => {
    expect(anomaly(when(new EventStream(), (s) => s.add(E.ACTION_ACCEPTED, {})).result)).toBe(AnomalyReason.malformed);
  });

  it("refuses another invocation's event", () => {
    const state = initialState('act_A');
    const event = new EventStream('act_B').add(E.ACTION_ACCEPTED, { client_request_id: 'r' });
    const result = evolve(state, event);
    expect(anomaly(result)).toBe(AnomalyReason.wrong_invocation);
  });
});

describe('evolve: sequence', () => {
  it('refuses a gap and a repeat, leaving the state as it was', () => {
    const given = validated();
    const state = fold(given.events);
    const snapshot = JSON.stringify(state);
    const gap = { ...given.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'x' } }), n: 5 };
    expect(anomaly(evolve(state, gap))).toBe(AnomalyReason.sequence_gap);
    const repeat = { ...given.events[1]! };
    expect(anomaly(evolve(state, repeat))).toBe(AnomalyReason.sequence_gap);
    expect(JSON.stringify(state)).toBe(snapshot);
  });

  it('refuses a second ACTION_ACCEPTED', () => {
    expect(anomaly(when(accepted(), (s) => s.add(E.ACTION_ACCEPTED, { client_request_id: 'again' })).result)).toBe(AnomalyReason.malformed);
  });

  it('refuses an envelope with a bad type or data', () => {
    const given = accepted();
    const state = fold(given.events);
    const bad = { ...given.add(E.PREFLIGHT_VALIDATED), type: 'NOPE' } as unknown as StoredEvent;
    expect(anomaly(evolve(state, bad))).toBe(AnomalyReason.malformed);
    expect(anomaly(evolve(state, null as unknown as StoredEvent))).toBe(AnomalyReason.malformed);
  });
});

describe('evolve: an accepted invocation', () => {
  it('PREFLIGHT_VALIDATED binds it and moves to credential_injection', () => {
    const state = ok(when(accepted(), (s) => s.add(E.PREFLIGHT_VALIDATED, { binding: testBinding(), request_fingerprint: 'sha256:fp' })).result);
    expect(state.binding?.target).toBe('https://api.example.com:443/v1/charges');
    expect(state.request_fingerprint).toBe('sha256:fp');
    expect(state.phase).toBe(Phase.credential_injection);
    expect(state.status).toBe('pending');
  });

  it('PREFLIGHT_VALIDATED without a binding is malformed', () => {
    expect(anomaly(when(accepted(), (s) => s.add(E.PREFLIGHT_VALIDATED, { request_fingerprint: 'x' })).result)).toBe(AnomalyReason.malformed);
  });

  it('PREFLIGHT_REJECTED resolves it not_attempted in validation with the field', () => {
    const state = ok(when(accepted(), (s) => s.add(E.PREFLIGHT_REJECTED, { code: Code.FORBIDDEN_HEADER, field: 'http.headers.cookie', message: 'no' })).result);
    expect(state).toMatchObject({
      status: 'resolved',
      outcome: Outcome.not_attempted,
      phase: Phase.validation,
      code: Code.FORBIDDEN_HEADER,
      retry_rule: Retry.after_correction,
      field: 'http.headers.cookie',
    });
  });

  it('nothing follows a PREFLIGHT_REJECTED', () => {
    const given = accepted();
    given.add(E.PREFLIGHT_REJECTED, { code: Code.MISSING_FIELD, field: 'credential', message: 'm' });
    expect(anomaly(when(given, (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 1 })).result)).toBe(AnomalyReason.after_final);
  });

  it('a cancel before dispatch stops it in the phase reached', () => {
    const state = ok(when(validated(), (s) => s.add(E.CALLER_CANCELLED, { phase: Phase.credential_injection, dispatched: false })).result);
    expect(state).toMatchObject({
      status: 'resolved',
      outcome: Outcome.not_attempted,
      phase: Phase.credential_injection,
      code: Code.CALLER_CANCELLED,
      retry_rule: Retry.never,
      cancelled: true,
    });
  });
});

describe('evolve: a validated invocation', () => {
  it('CREDENTIAL_REJECTED (vault locked) resolves it in credential_injection with the operator action', () => {
    const state = ok(when(validated(), (s) => s.add(E.CREDENTIAL_REJECTED, { code: Code.VAULT_LOCKED, message: 'locked' })).result);
    expect(state).toMatchObject({
      status: 'resolved',
      outcome: Outcome.not_attempted,
      phase: Phase.credential_injection,
      code: Code.VAULT_LOCKED,
      action_required: 'vault_unlock',
    });
  });

  it('APPROVAL_DENIED resolves it with retry never', () => {
    const state = ok(when(validated(), (s) => s.add(E.APPROVAL_DENIED, {})).result);
    expect(state).toMatchObject({ code: Code.APPROVAL_DENIED, retry_rule: Retry.never, status: 'resolved' });
  });

  it('CREDENTIAL_AUTHORIZED keeps it pending and records the credential', () => {
    const state = ok(when(validated(), (s) => s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 4, injection: 'http_bearer' } })).result);
    expect(state.status).toBe('pending');
    expect(state.credential).toEqual({ id: 'payments-api', version: 4, injection: 'http_bearer' });
    expect(state.phase).toBe(Phase.connection_setup);
  });
});

describe('evolve: an authorized invocation (connection setup)', () => {
  it('a connection failure with tries left adds a row and stays pending', () => {
    const state = ok(
      when(authorized(), (s) =>
        s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff }, { attempt: 1, generation: 1 }),
      ).result,
    );
    expect(state.status).toBe('pending');
    expect(state.code).toBeNull();
    expect(state.attempts).toEqual([
      { attempt: 1, connect_try: 1, stage: Stage.tcp_connect, outcome: Outcome.not_attempted, code: Code.CONNECT_REFUSED, dispatched: false },
    ]);
  });

  it('the last connect try resolves it in connection_setup', () => {
    const given = authorized();
    for (const t of [1, 2]) given.add(E.CONNECTION_FAILED, { connect_try: t, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: Retry.backoff }, { attempt: 1 });
    const state = ok(when(given, (s) => s.add(E.CONNECTION_FAILED, { connect_try: 3, stage: Stage.tls_handshake, code: Code.TLS_CERT_REJECTED, retry_rule: Retry.after_correction }, { attempt: 1 })).result);
    expect(state).toMatchObject({ status: 'resolved', outcome: Outcome.not_attempted, phase: Phase.connection_setup, code: Code.TLS_CERT_REJECTED, retry_rule: Retry.after_correction });
    expect(state.evidence.stage).toBe(Stage.tls_handshake);
  });

  it('data.final resolves it before the tries are spent', () => {
    const state = ok(when(authorized(), (s) => s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: Stage.dns, code: Code.DNS_FAILED, retry_rule: Retry.after_correction, final: true }, { attempt: 1 })).result);
    expect(state.status).toBe('resolved');
  });

  it('DISPATCH_STARTED makes the outcome unknown and records the dispatch', () => {
    const state = ok(when(authorized(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 2, connection: { id: 'c-2', reused: true } }, { attempt: 1, generation: 1 })).result);
    expect(state).toMatchObject({ outcome: Outcome.unknown, status: 'pending', phase: Phase.remote_execution, dispatches: 1 });
    expect(state.evidence).toMatchObject({ dispatch_started: true, attempt: 1, connect_try: 2, dispatch_seq: 104, connection: { id: 'c-2', reused: true } });
  });

  it('DISPATCH_STARTED for attempt 0 is an attempt mismatch', () => {
    expect(anomaly(when(authorized(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 0 })).result)).toBe(AnomalyReason.attempt_mismatch);
  });

  it('a REMOTE_* event before any dispatch is an attempt mismatch', () => {
    expect(anomaly(when(authorized(), (s) => complete(s, Outcome.committed, null, Retry.never)).result)).toBe(AnomalyReason.attempt_mismatch);
  });
});

describe('evolve: a dispatched invocation', () => {
  it('REQUEST_SENT and REMOTE_RESPONSE_STARTED record progress, still pending', () => {
    const given = dispatched();
    given.add(E.REQUEST_SENT, { request_headers_sent: true, request_complete: true }, { attempt: 1 });
    const state = ok(when(given, (s) => s.add(E.REMOTE_RESPONSE_STARTED, { response_status: 200, framing: 'chunked' }, { attempt: 1 })).result);
    expect(state.status).toBe('pending');
    expect(state.evidence).toMatchObject({ request_complete: true, response_headers_received: true, response_status: 200, framing: 'chunked', stage: Stage.response_body });
  });

  it('a complete 2xx commits it with no error', () => {
    const state = ok(when(dispatched(), (s) => complete(s, Outcome.committed, null, Retry.never)).result);
    expect(state).toMatchObject({ outcome: Outcome.committed, status: 'resolved', code: null });
    expect(state.evidence).toMatchObject({ response_complete: true, response_status: 201, response_digest: 'sha256:r', source: EvidenceSource.remote_response });
    expect(state.attempts.at(-1)).toMatchObject({ outcome: Outcome.committed, code: null });
  });

  it('a complete 4xx rejects it', () => {
    const state = ok(when(dispatched(), (s) => complete(s, Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction, { response_status: 404 })).result);
    expect(state).toMatchObject({ outcome: Outcome.rejected, code: Code.REMOTE_REJECTED, status: 'resolved' });
  });

  it('REMOTE_OUTCOME_UNKNOWN resolves it unknown', () => {
    const state = ok(
      when(dispatched(), (s) =>
        s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: DeferredRetry.rule_u, stage: Stage.response_headers, diagnostic: 'UND_ERR_SOCKET' }, { attempt: 1 }),
      ).result,
    );
    expect(state).toMatchObject({ outcome: Outcome.unknown, status: 'resolved', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: DeferredRetry.rule_u });
    expect(JSON.stringify(state)).not.toContain('UND_ERR_SOCKET');
  });

  it('RECOVERY_OBSERVED resolves it unknown and marks it recovered', () => {
    const state = ok(when(dispatched(), (s) => s.add(E.RECOVERY_OBSERVED, { stage: Stage.response_headers, outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u' }, { attempt: 1 })).result);
    expect(state.evidence.recovered).toBe(true);
    expect(state.outcome).toBe(Outcome.unknown);
  });

  it.each([E.PREFLIGHT_REJECTED, E.CREDENTIAL_REJECTED])('%s after dispatch is an outcome regression', (type) => {
    expect(anomaly(when(dispatched(), (s) => s.add(type, { code: Code.MISSING_FIELD })).result)).toBe(AnomalyReason.outcome_regression);
  });

  it('CONNECTION_FAILED for the dispatched attempt is an outcome regression', () => {
    expect(
      anomaly(when(dispatched(), (s) => s.add(E.CONNECTION_FAILED, { connect_try: 2, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED }, { attempt: 1 })).result),
    ).toBe(AnomalyReason.outcome_regression);
  });

  it('a REMOTE_* event saying not_attempted is an outcome regression', () => {
    expect(anomaly(when(dispatched(), (s) => complete(s, Outcome.not_attempted, Code.CONNECT_REFUSED, Retry.backoff)).result)).toBe(AnomalyReason.outcome_regression);
  });

  it('a second DISPATCH_STARTED for the same attempt is refused', () => {
    expect(anomaly(when(dispatched(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 1 })).result)).toBe(AnomalyReason.attempt_mismatch);
  });

  it('a cancel keeps the outcome unknown, says CALLER_CANCELLED under Rule U and resolves', () => {
    const state = ok(when(dispatched(), (s) => s.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true })).result);
    expect(state).toMatchObject({ cancelled: true, outcome: Outcome.unknown, code: Code.CALLER_CANCELLED, retry_rule: DeferredRetry.rule_u, status: 'resolved' });
  });
});

describe('evolve: a cancelled dispatched invocation', () => {
  function cancelled() {
    const s = dispatched();
    s.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true });
    return s;
  }

  it('a late complete response is classified and its code replaces CALLER_CANCELLED', () => {
    const state = ok(when(cancelled(), (s) => complete(s, Outcome.committed, Code.REMOTE_ERROR_RESPONSE, DeferredRetry.error_response, { response_status: 500 })).result);
    expect(state).toMatchObject({ cancelled: true, outcome: Outcome.committed, code: Code.REMOTE_ERROR_RESPONSE });
  });

  it('no new attempt is made', () => {
    expect(anomaly(when(cancelled(), (s) => s.add(E.RETRY_SCHEDULED, { reason: 'x', unsafe: false })).result)).toBe(AnomalyReason.after_final);
    expect(anomaly(when(cancelled(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2 })).result)).toBe(AnomalyReason.after_final);
  });
});

describe('evolve: a committed invocation', () => {
  function committed() {
    const s = dispatched();
    complete(s, Outcome.committed, null, Retry.never);
    return s;
  }

  it('refuses another dispatch, connection try or retry', () => {
    expect(anomaly(when(committed(), (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2 })).result)).toBe(AnomalyReason.after_final);
    expect(anomaly(when(committed(), (s) => s.add(E.CONNECTION_FAILED, { connect_try: 1, stage: 'dns', code: Code.DNS_FAILED }, { attempt: 2 })).result)).toBe(AnomalyReason.after_final);
    expect(anomaly(when(committed(), (s) => s.add(E.RETRY_SCHEDULED, {})).result)).toBe(AnomalyReason.after_final);
  });

  it('refuses a contradicting verdict for the same attempt', () => {
    expect(anomaly(when(committed(), (s) => complete(s, Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction)).result)).toBe(AnomalyReason.outcome_regression);
    expect(anomaly(when(committed(), (s) => s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN }, { attempt: 1 })).result)).toBe(
      AnomalyReason.outcome_regression,
    );
  });

  it('refuses a reconcile that says rejected', () => {
    expect(anomaly(when(committed(), (s) => s.add(E.RECONCILE_OBSERVED, { outcome: 'rejected' }, { source: EvidenceSource.remote_query })).result)).toBe(AnomalyReason.outcome_regression);
  });

  it('RESULT_COMMITTED records the result; RESULT_DELIVERY_FAILED then RESULT_DELIVERED clear up', () => {
    const given = committed();
    given.add(E.RESULT_COMMITTED, { result_digest: 'sha256:res', result_object: 'act_x/1' });
    given.add(E.RESULT_DELIVERY_FAILED, { reason: 'caller gone' });
    let state = fold(given.events);
    expect(state.result).toEqual({ result_digest: 'sha256:res', result_object: 'act_x/1' });
    expect(state.delivery_failed).toBe(true);
    state = ok(when(given, (s) => s.add(E.RESULT_DELIVERED, { result_digest: 'sha256:res' })).result);
    expect(state).toMatchObject({ delivered: true, delivery_failed: false, outcome: Outcome.committed });
  });

  it('a cancel after the commit is refused', () => {
    expect(anomaly(when(committed(), (s) => s.add(E.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true })).result)).toBe(AnomalyReason.after_final);
  });
});

describe('evolve: an unknown invocation', () => {
  function unknown(binding = testBinding()) {
    const s = dispatched(binding);
    s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, { attempt: 1 });
    return s;
  }

  it('a reconcile saying committed commits it, with its source and no error', () => {
    const state = ok(when(unknown(), (s) => s.add(E.RECONCILE_OBSERVED, { outcome: 'committed' }, { source: EvidenceSource.remote_query })).result);
    expect(state).toMatchObject({ outcome: Outcome.committed, code: null, status: 'resolved' });
    expect(state.evidence.source).toBe(EvidenceSource.remote_query);
  });

  it('an operator attesting rejected rejects it and allows a new attempt', () => {
    const state = ok(when(unknown(), (s) => s.add(E.OPERATOR_ATTESTED, { outcome: 'rejected', note: 'checked' }, { source: EvidenceSource.operator_attested })).result);
    expect(state).toMatchObject({ outcome: Outcome.rejected, retry_rule: Retry.backoff });
    expect(state.attempts.at(-1)?.outcome).toBe(Outcome.rejected);
  });

  it('a reconcile with a bad outcome is malformed', () => {
    expect(anomaly(when(unknown(), (s) => s.add(E.RECONCILE_OBSERVED, { outcome: 'unknown' })).result)).toBe(AnomalyReason.malformed);
  });

  it('a late complete response for the attempt settles it', () => {
    const state = ok(when(unknown(), (s) => complete(s, Outcome.committed, null, Retry.never)).result);
    expect(state.outcome).toBe(Outcome.committed);
  });

  it("a later attempt's connection failure never moves it back to not_attempted", () => {
    const given = unknown();
    given.add(E.RETRY_SCHEDULED, { reason: 'caller', unsafe: false });
    const state = ok(
      when(given, (s) => s.add(E.CONNECTION_FAILED, { connect_try: 3, stage: Stage.tcp_connect, code: Code.CONNECT_REFUSED, retry_rule: 'backoff' }, { attempt: 2 })).result,
    );
    expect(state.outcome).toBe(Outcome.unknown);
    expect(state.code).toBe(Code.REMOTE_OUTCOME_UNKNOWN);
    expect(state.attempts.map((r) => r.outcome)).toEqual([Outcome.unknown, Outcome.not_attempted]);
  });

  it('a second attempt that is rejected leaves the invocation unknown while the first is unresolved', () => {
    const given = unknown();
    given.add(E.RETRY_SCHEDULED, { reason: 'caller', unsafe: false });
    given.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2, generation: 2 });
    const state = ok(when(given, (s) => complete(s, Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction, {}, 2)).result);
    expect(state.outcome).toBe(Outcome.unknown);
    expect(state.dispatches).toBe(2);
  });
});

describe('evolve: a rejected invocation', () => {
  it('a new attempt may follow and makes the outcome unknown again', () => {
    const given = dispatched();
    complete(given, Outcome.rejected, Code.RATE_LIMITED, DeferredRetry.rule_r, { response_status: 429, retry_after_ms: 1000 });
    given.add(E.RETRY_SCHEDULED, { reason: 'auto', unsafe: false });
    const state = ok(when(given, (s) => s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2, generation: 2 })).result);
    expect(state).toMatchObject({ outcome: Outcome.unknown, status: 'pending', code: null, dispatches: 2 });
    expect(state.evidence.response_status).toBeUndefined();
  });
});

describe('evolve: JSON', () => {
  it('the state survives a JSON round trip and folds on the same', () => {
    const given = dispatched();
    const mid = JSON.parse(JSON.stringify(fold(given.events))) as InvocationState;
    const event = complete(given, Outcome.committed, null, Retry.never);
    expect(ok(evolve(mid, event))).toEqual(fold(given.events));
  });
});
