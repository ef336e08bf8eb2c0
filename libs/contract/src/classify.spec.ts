import { describe, expect, it } from 'vitest';
import type { Classification } from './classification.js';
import { classify } from './classify.js';
import { Code } from './code.js';
import type { HttpObservation, SshObservation } from './observation.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import { Retry } from './retry.js';
import { resolveRetry, type RetryContext } from './retry-rule.js';
import { Stage } from './stage.js';

const NOW = Date.parse('2026-11-29T18:00:00.000Z');
const FUTURE = '2026-11-30T17:00:00.000Z';

const plain: RetryContext = {
  known_idempotent: false,
  under_contract: false,
  idempotency_expires_at: null,
  fingerprint_unchanged: true,
  budget_left: 3,
};
const idempotent: RetryContext = { ...plain, known_idempotent: true };
const contract: RetryContext = { ...plain, under_contract: true, idempotency_expires_at: FUTURE };

function http(o: Partial<HttpObservation> = {}): HttpObservation {
  return {
    kind: 'http',
    connection_reused: false,
    write_failed: false,
    request_complete: true,
    response_started: true,
    status: 200,
    body_complete: true,
    broker_timeout: false,
    body_over_limit: false,
    contract: null,
    ...o,
  };
}

function ssh(o: Partial<SshObservation> = {}): SshObservation {
  return {
    kind: 'ssh',
    channel_open_refused: false,
    exec_reply: 'success',
    connection_lost: false,
    channel_closed: true,
    exit_status: 0,
    exit_signal: null,
    output_over_limit: false,
    output_broken: false,
    broker_timeout: false,
    ...o,
  };
}

/** Retry of a classification under a plain, a known-idempotent and a contract context. */
function retries(c: Classification): [Retry, Retry, Retry] {
  return [resolveRetry(c.retry_rule, plain, NOW), resolveRetry(c.retry_rule, idempotent, NOW), resolveRetry(c.retry_rule, contract, NOW)];
}

const RULE_U: [Retry, Retry, Retry] = [Retry.reconcile, Retry.backoff, Retry.same_idempotency_key];
const RULE_R: [Retry, Retry, Retry] = [Retry.reconcile, Retry.backoff, Retry.backoff];

function expectRow(c: Classification, phase: Phase, outcome: Outcome, code: Code | null, retry: [Retry, Retry, Retry] | Retry): void {
  expect({ phase: c.phase, outcome: c.outcome, code: c.code }).toEqual({ phase, outcome, code });
  const expected = typeof retry === 'string' ? [retry, retry, retry] : retry;
  expect(retries(c)).toEqual(expected);
}

describe('classify: validation rows', () => {
  it.each([
    Code.MISSING_FIELD,
    Code.INVALID_TARGET,
    Code.UNSUPPORTED_ACTION,
    Code.PAYLOAD_LIMIT,
    Code.TARGET_NOT_ALLOWED,
    Code.UNKNOWN_CREDENTIAL,
    Code.FORBIDDEN_HEADER,
    Code.IDEMPOTENCY_UNSUPPORTED,
    Code.IDEMPOTENCY_MISMATCH,
    Code.BINDING_CHANGED,
  ])('%s is validation, not_attempted, after_correction', (code) => {
    const c = classify({ kind: 'preflight', code });
    expectRow(c, Phase.validation, Outcome.not_attempted, code, Retry.after_correction);
    expect(c.stage).toBe(Stage.validation);
  });
});

describe('classify: credential rows', () => {
  it('vault locked names the operator action', () => {
    const c = classify({ kind: 'preflight', code: Code.VAULT_LOCKED });
    expectRow(c, Phase.credential_injection, Outcome.not_attempted, Code.VAULT_LOCKED, Retry.after_correction);
    expect(c.action_required).toBe('vault_unlock');
    expect(c.stage).toBe(Stage.credential);
  });
  it.each([
    [Code.APPROVAL_DENIED, Retry.never],
    [Code.APPROVAL_TIMEOUT, Retry.after_correction],
    [Code.CREDENTIAL_SCOPE_MISMATCH, Retry.after_correction],
    [Code.CREDENTIAL_MISSING, Retry.after_correction],
    [Code.INJECTION_MODE_UNSUPPORTED, Retry.after_correction],
    [Code.CREDENTIAL_DECRYPT_FAILED, Retry.never],
  ])('%s retries %s', (code, retry) => {
    expectRow(classify({ kind: 'preflight', code }), Phase.credential_injection, Outcome.not_attempted, code, retry);
  });
});

describe('classify: connection setup rows', () => {
  it.each([
    ['dns_nxdomain', Code.DNS_FAILED, Retry.after_correction, Stage.dns],
    ['dns_temporary', Code.DNS_FAILED, Retry.backoff, Stage.dns],
    ['tcp_refused', Code.CONNECT_REFUSED, Retry.backoff, Stage.tcp_connect],
    ['tcp_timeout', Code.CONNECT_TIMEOUT, Retry.backoff, Stage.tcp_connect],
    ['tcp_unreachable', Code.NETWORK_UNREACHABLE, Retry.backoff, Stage.tcp_connect],
    ['tls_cert_rejected', Code.TLS_CERT_REJECTED, Retry.after_correction, Stage.tls_handshake],
    ['tls_handshake', Code.TLS_HANDSHAKE_FAILED, Retry.backoff, Stage.tls_handshake],
    ['proxy_tunnel', Code.PROXY_TUNNEL_FAILED, Retry.backoff, Stage.proxy_connect],
    ['ssh_kex', Code.SSH_HANDSHAKE_FAILED, Retry.backoff, Stage.ssh_handshake],
    ['ssh_host_key', Code.SSH_HOST_KEY_REJECTED, Retry.after_correction, Stage.ssh_host_key],
    ['ssh_auth', Code.SSH_AUTH_FAILED, Retry.after_correction, Stage.ssh_auth],
  ] as const)('%s → %s, %s', (failure, code, retry, stage) => {
    const c = classify({ kind: 'setup', failure });
    expectRow(c, Phase.connection_setup, Outcome.not_attempted, code, retry);
    expect(c.stage).toBe(stage);
  });
});

describe('classify: HTTP after dispatch', () => {
  it('a write failing on a reused pooled connection is unknown (Rule U)', () => {
    const c = classify(http({ connection_reused: true, write_failed: true, request_complete: false, response_started: false, status: null, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.stage).toBe(Stage.request_write);
  });

  it('a write failing on a fresh connection after the hand-over is still unknown', () => {
    const c = classify(http({ write_failed: true, request_complete: false, response_started: false, status: null, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
  });

  it('the connection ending after the request, before any response byte, is unknown', () => {
    const c = classify(http({ response_started: false, status: null, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.stage).toBe(Stage.response_headers);
  });

  it('a status line or header section cut short is an incomplete result', () => {
    const c = classify(http({ response_started: true, status: null, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, RULE_U);
    expect(c.stage).toBe(Stage.response_headers);
  });

  it.each([200, 404, 500])('a body cut short (Content-Length, chunk or reset) after status %i is incomplete', (status) => {
    const c = classify(http({ status, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, RULE_U);
    expect(c.stage).toBe(Stage.response_body);
  });

  it('the broker timing out before a final response is outcome unknown', () => {
    const c = classify(http({ broker_timeout: true, response_started: false, status: null, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
  });

  it('the broker timing out in the middle of a response is an incomplete result', () => {
    const c = classify(http({ broker_timeout: true, status: 200, body_complete: false }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, RULE_U);
  });

  it.each([200, 201, 204, 301, 302, 304, 399])('complete %i is committed with no error', (status) => {
    const c = classify(http({ status }));
    expect(c).toMatchObject({ phase: Phase.remote_execution, outcome: Outcome.committed, code: null });
    expect(c.async_operation).toBeUndefined();
  });

  it('complete 202 with Location is committed and names the async operation', () => {
    const c = classify(http({ status: 202, location: 'https://api.example.com/jobs/7', job_id: '7' }));
    expect(c).toMatchObject({ outcome: Outcome.committed, code: null });
    expect(c.async_operation).toEqual({ status_url: 'https://api.example.com/jobs/7', job_id: '7' });
  });

  it('complete 409 under a contract is IDEMPOTENCY_KEY_IN_USE with same_idempotency_key', () => {
    const c = classify(http({ status: 409, contract: { in_use_status: 409, mismatch_status: 422 } }));
    expect(c).toMatchObject({ outcome: Outcome.rejected, code: Code.IDEMPOTENCY_KEY_IN_USE });
    expect(resolveRetry(c.retry_rule, contract, NOW)).toBe(Retry.same_idempotency_key);
  });

  it("the contract's own statuses are used, not 409 and 422", () => {
    const statuses = { in_use_status: 425, mismatch_status: 400 };
    expect(classify(http({ status: 425, contract: statuses })).code).toBe(Code.IDEMPOTENCY_KEY_IN_USE);
    expect(classify(http({ status: 400, contract: statuses })).code).toBe(Code.IDEMPOTENCY_MISMATCH);
    expect(classify(http({ status: 409, contract: statuses })).code).toBe(Code.REMOTE_REJECTED);
  });

  it('complete 422 under a contract is IDEMPOTENCY_MISMATCH, after_correction', () => {
    const c = classify(http({ status: 422, contract: { in_use_status: 409, mismatch_status: 422 } }));
    expectRow(c, Phase.remote_execution, Outcome.rejected, Code.IDEMPOTENCY_MISMATCH, Retry.after_correction);
  });

  it('complete 408 is REMOTE_REJECTED under Rule R', () => {
    expectRow(classify(http({ status: 408 })), Phase.remote_execution, Outcome.rejected, Code.REMOTE_REJECTED, RULE_R);
  });

  it('complete 429 is RATE_LIMITED under Rule R and carries Retry-After', () => {
    const c = classify(http({ status: 429, retry_after_ms: 30_000 }));
    expectRow(c, Phase.remote_execution, Outcome.rejected, Code.RATE_LIMITED, RULE_R);
    expect(c.retry_after_ms).toBe(30_000);
  });

  it('an unusable Retry-After is dropped', () => {
    expect(classify(http({ status: 429, retry_after_ms: Number.NaN })).retry_after_ms).toBeUndefined();
  });

  it.each([400, 401, 403, 404, 409, 410, 422, 451, 499])('complete %i without a contract is REMOTE_REJECTED, after_correction', (status) => {
    expectRow(classify(http({ status })), Phase.remote_execution, Outcome.rejected, Code.REMOTE_REJECTED, Retry.after_correction);
  });

  it.each([500, 501, 503, 505, 599])('complete %i is committed REMOTE_ERROR_RESPONSE (idempotent → backoff, contract → same key, else reconcile)', (status) => {
    expectRow(classify(http({ status })), Phase.remote_execution, Outcome.committed, Code.REMOTE_ERROR_RESPONSE, [
      Retry.reconcile,
      Retry.backoff,
      Retry.same_idempotency_key,
    ]);
  });

  it.each([502, 504])('complete %i is an intermediary word: unknown under Rule U, with hop and proxy status', (status) => {
    const c = classify(http({ status, hop: 'proxy:edge', proxy_status: [{ proxy: 'edge', error: 'connection_timeout' }] }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.hop).toBe('proxy:edge');
    expect(c.proxy_status).toEqual([{ proxy: 'edge', error: 'connection_timeout' }]);
  });

  it.each([
    [200, Outcome.committed],
    [404, Outcome.rejected],
    [500, Outcome.committed],
    [502, Outcome.unknown],
  ])('a complete %i over the body limit is RESPONSE_TRUNCATED, outcome %s, never, complete false', (status, outcome) => {
    const c = classify(http({ status, body_over_limit: true }));
    expectRow(c, Phase.remote_execution, outcome, Code.RESPONSE_TRUNCATED, Retry.never);
    expect(c.complete).toBe(false);
  });
});

describe('classify: SSH after dispatch', () => {
  it('a refused session channel is the server saying no: rejected, backoff', () => {
    const c = classify(ssh({ channel_open_refused: true, exec_reply: null, exit_status: null }));
    expectRow(c, Phase.remote_execution, Outcome.rejected, Code.SSH_CHANNEL_OPEN_FAILED, Retry.backoff);
    expect(c.stage).toBe(Stage.ssh_channel_open);
  });

  it('an exec failure reply over a live connection is SSH_EXEC_REJECTED', () => {
    const c = classify(ssh({ exec_reply: 'failure', exit_status: null }));
    expectRow(c, Phase.remote_execution, Outcome.rejected, Code.SSH_EXEC_REJECTED, Retry.after_correction);
  });

  it('"Unable to exec" after the connection dropped is unknown, not rejected', () => {
    const c = classify(ssh({ exec_reply: 'failure', connection_lost: true, exit_status: null }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
  });

  it('the connection lost after the exec request, before exit, is unknown', () => {
    const c = classify(ssh({ exec_reply: null, connection_lost: true, exit_status: null }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.stage).toBe(Stage.exec_request);
  });

  it('the broker timing out while the command runs is unknown', () => {
    const c = classify(ssh({ broker_timeout: true, channel_closed: false, exit_status: null }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.stage).toBe(Stage.exec_running);
  });

  it('exit 0 with the channel closed is committed with no error', () => {
    expect(classify(ssh())).toMatchObject({ outcome: Outcome.committed, code: null });
  });

  it('a non-zero exit is committed REMOTE_EXIT_NONZERO (idempotent → backoff, else reconcile)', () => {
    expectRow(classify(ssh({ exit_status: 2 })), Phase.remote_execution, Outcome.committed, Code.REMOTE_EXIT_NONZERO, [
      Retry.reconcile,
      Retry.backoff,
      Retry.reconcile,
    ]);
  });

  it('an exit signal is REMOTE_EXIT_NONZERO too', () => {
    expect(classify(ssh({ exit_status: null, exit_signal: 'KILL' }))).toMatchObject({
      outcome: Outcome.committed,
      code: Code.REMOTE_EXIT_NONZERO,
    });
  });

  it.each([0, 3])('output over the limit after exit %i is REMOTE_OUTPUT_TRUNCATED, never, complete false', (exit) => {
    const c = classify(ssh({ exit_status: exit, output_over_limit: true }));
    expectRow(c, Phase.remote_execution, Outcome.committed, Code.REMOTE_OUTPUT_TRUNCATED, Retry.never);
    expect(c.complete).toBe(false);
  });

  it('a channel closing with neither exit status nor signal is REMOTE_RESULT_INCOMPLETE', () => {
    const c = classify(ssh({ exit_status: null, channel_closed: true }));
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, RULE_U);
  });

  it('an exit status followed by a broken output stream is REMOTE_OUTPUT_INCOMPLETE, never', () => {
    const c = classify(ssh({ exit_status: 0, output_broken: true }));
    expectRow(c, Phase.remote_execution, Outcome.committed, Code.REMOTE_OUTPUT_INCOMPLETE, Retry.never);
  });
});

describe('classify: invocation-level rows', () => {
  it('a cancel after dispatch is CALLER_CANCELLED, unknown, Rule U', () => {
    const c = classify({ kind: 'caller_cancelled', dispatched: true, phase: Phase.remote_execution });
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.CALLER_CANCELLED, RULE_U);
  });

  it('a cancel before dispatch stops in the phase reached, never retried', () => {
    const c = classify({ kind: 'caller_cancelled', dispatched: false, phase: Phase.credential_injection });
    expectRow(c, Phase.credential_injection, Outcome.not_attempted, Code.CALLER_CANCELLED, Retry.never);
  });

  it('recovery of an unresolved dispatch is unknown, recovered, Rule U', () => {
    const c = classify({ kind: 'recovery' });
    expectRow(c, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, RULE_U);
    expect(c.recovered).toBe(true);
  });

  it.each([Outcome.unknown, Outcome.rejected])('a spent budget keeps outcome %s and says reconcile', (outcome) => {
    expectRow(classify({ kind: 'budget_exhausted', outcome }), Phase.remote_execution, outcome, Code.RETRY_BUDGET_EXHAUSTED, Retry.reconcile);
  });

  it.each([Outcome.committed, Outcome.rejected])('a failed delivery keeps outcome %s and says fetch_result', (outcome) => {
    expectRow(classify({ kind: 'result_delivery_failed', outcome }), Phase.result_delivery, outcome, Code.RESULT_DELIVERY_FAILED, Retry.fetch_result);
  });

  it('a failed result store after a durable response keeps the outcome and needs an operator', () => {
    const c = classify({ kind: 'result_store_failed', outcome: Outcome.committed, response_complete_durable: true });
    expectRow(c, Phase.result_delivery, Outcome.committed, Code.RESULT_STORE_FAILED, Retry.never);
    expect(c.intervention_required).toBe(true);
  });

  it('a failed result store without a durable response is unknown', () => {
    const c = classify({ kind: 'result_store_failed', outcome: Outcome.committed, response_complete_durable: false });
    expectRow(c, Phase.result_delivery, Outcome.unknown, Code.RESULT_STORE_FAILED, Retry.never);
  });
});
