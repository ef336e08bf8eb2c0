import { describe, expect, it } from 'vitest';
import { Code } from './code.js';
import { Verdict } from './decide.js';
import { EventType } from './event-type.js';
import { evolve } from './evolve.js';
import { EventStream, testBinding } from './fixtures/event-builder.js';
import { initialState, type InvocationState } from './invocation-state.js';
import { Outcome } from './outcome.js';
import { Status } from './record-view.js';
import { Stage } from './stage.js';

// The automatic retry after dispatch (`dispatch.auto_retry`): RETRY_SCHEDULED
// and then the next attempt's lease and dispatch, after an unknown, a
// rejected or a recovered attempt.

const E = EventType;

function fold(s: EventStream): InvocationState {
  let state = initialState(s.invocationId);
  for (const event of s.events) {
    const r = evolve(state, event);
    if (!r.ok) throw new Error(`${event.type}: ${r.anomaly.message}`);
    state = r.state;
  }
  return state;
}

function dispatchedOnce(): EventStream {
  const s = new EventStream();
  s.add(E.ACTION_ACCEPTED, { client_request_id: 'req-r' });
  s.add(E.PREFLIGHT_VALIDATED, { binding: testBinding({ known_idempotent: true, method: 'GET', auto_retry: true, budget: 3 }), request_fingerprint: 'sha256:fp' });
  s.add(E.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 3, injection: 'http_bearer' } });
  s.add(E.LEASE_ACQUIRED, { holder: 'd1', expires_at: '2026-11-29T18:01:00.000Z' }, { attempt: 1, generation: 1 });
  s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 1, generation: 1 });
  return s;
}

const RESOLUTIONS: Record<string, (s: EventStream) => void> = {
  unknown: (s) =>
    s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, { attempt: 1, generation: 1 }),
  rejected: (s) =>
    s.add(
      E.REMOTE_RESPONSE_COMPLETE,
      { outcome: 'rejected', code: Code.RATE_LIMITED, retry_rule: 'rule_r', stage: Stage.response_body, response_status: 429, retry_after_ms: 1000 },
      { attempt: 1, generation: 1 },
    ),
  recovered: (s) =>
    s.add(E.RECOVERY_OBSERVED, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, { attempt: 1, generation: 2 }),
};

describe('evolve: an automatic retry after dispatch', () => {
  it.each(Object.keys(RESOLUTIONS))('after a %s attempt, RETRY_SCHEDULED reopens it and the next lease and dispatch follow', (kind) => {
    const s = dispatchedOnce();
    RESOLUTIONS[kind]?.(s);
    expect(fold(s).status).toBe(Status.resolved);
    const gen = kind === 'recovered' ? 2 : 1;
    s.add(E.RETRY_SCHEDULED, { reason: Verdict.RETRY_NEW_ATTEMPT, unsafe: false, not_before: '2026-11-29T18:00:10.000Z' }, { attempt: 1, generation: gen });
    const scheduled = fold(s);
    expect(scheduled.status).toBe(Status.pending);
    expect(scheduled.dispatches).toBe(1);
    s.add(E.LEASE_ACQUIRED, { holder: 'd1', expires_at: '2026-11-29T18:01:30.000Z' }, { attempt: 2, generation: gen + 1 });
    s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 2, generation: gen + 1 });
    const second = fold(s);
    expect(second).toMatchObject({ status: Status.pending, outcome: Outcome.unknown, code: null, dispatches: 2 });
    expect(second.evidence).toMatchObject({ attempt: 2, generation: gen + 1, dispatch_started: true });
    s.add(E.REMOTE_OUTCOME_UNKNOWN, { outcome: 'unknown', code: Code.REMOTE_OUTCOME_UNKNOWN, retry_rule: 'rule_u', stage: Stage.response_headers }, { attempt: 2, generation: gen + 1 });
    const done = fold(s);
    expect(done).toMatchObject({ status: Status.resolved, outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN });
    expect(done.attempts.map((r) => r.attempt)).toEqual([1, 2]);
  });

  it('a dispatch that does not take the next attempt number after the retry is refused', () => {
    const s = dispatchedOnce();
    RESOLUTIONS['unknown']?.(s);
    s.add(E.RETRY_SCHEDULED, { reason: Verdict.RETRY_NEW_ATTEMPT, unsafe: false }, { attempt: 1, generation: 1 });
    const state = fold(s);
    s.add(E.DISPATCH_STARTED, { connect_try: 1 }, { attempt: 1, generation: 2 });
    const last = s.events.at(-1);
    if (last === undefined) throw new Error('no event');
    const r = evolve(state, last);
    expect(r.ok).toBe(false);
  });
});
