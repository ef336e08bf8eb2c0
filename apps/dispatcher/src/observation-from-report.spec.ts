import { describe, expect, it } from 'vitest';
import { classify, Code, Outcome, Stage } from '@postern/contract';
import type { HttpExchangeReport } from '@postern/transport-http';
import { observationFromReport, remoteRequestId } from './observation-from-report.js';

function report(over: Partial<HttpExchangeReport> = {}): HttpExchangeReport {
  return {
    connection_id: 'c-1',
    connection_reused: false,
    write_failed: false,
    request_headers_sent: true,
    request_complete: true,
    interim_statuses: [],
    response_started: false,
    status: null,
    headers: null,
    headers_complete: false,
    framing: null,
    body_complete: false,
    body_bytes_read: 0,
    body_bytes_passed: 0,
    body_over_limit: false,
    broker_timeout: null,
    ended_by: 'fin',
    keep_alive: false,
    ...over,
  };
}

const complete = (status: number, over: Partial<HttpExchangeReport> = {}) =>
  report({ response_started: true, status, headers: [], headers_complete: true, framing: 'content-length', body_complete: true, ended_by: 'complete', ...over });

describe('observationFromReport', () => {
  it('does not count a status whose header section never completed', () => {
    const o = observationFromReport(report({ response_started: true, status: 200, headers_complete: false }), { hop: 'origin' }, null);
    expect(o.status).toBeNull();
    expect(o.body_complete).toBe(false);
    expect(o.hop).toBeUndefined();
    expect(classify(o)).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_RESULT_INCOMPLETE });
  });

  it('takes the body verdict only from the framing check', () => {
    const o = observationFromReport(complete(200, { body_complete: false, ended_by: 'fin' }), {}, null);
    expect(o.status).toBe(200);
    expect(o.body_complete).toBe(false);
    expect(classify(o)).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_RESULT_INCOMPLETE, stage: Stage.response_body });
  });

  it('turns a connection closed after the request into an unknown outcome, even on a reused socket', () => {
    const o = observationFromReport(report({ connection_reused: true }), {}, null);
    expect(o.connection_reused).toBe(true);
    expect(classify(o)).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, stage: Stage.response_headers });
  });

  it('keeps a failed write as unknown at request_write, never not_attempted', () => {
    const o = observationFromReport(report({ connection_reused: true, write_failed: true, request_complete: false }), {}, null);
    expect(classify(o)).toMatchObject({ outcome: Outcome.unknown, stage: Stage.request_write });
  });

  it('marks the broker timeout', () => {
    const o = observationFromReport(report({ broker_timeout: 'response_headers', ended_by: 'timeout' }), {}, null);
    expect(o.broker_timeout).toBe(true);
  });

  it('carries Retry-After, hop and proxy status of a complete response into the classification', () => {
    const o = observationFromReport(complete(429), { retry_after_ms: 7000, hop: 'origin' }, null);
    expect(classify(o)).toMatchObject({ outcome: Outcome.rejected, code: Code.RATE_LIMITED, retry_after_ms: 7000, hop: 'origin' });
    const p = observationFromReport(complete(502), { hop: 'proxy:edge', proxy_status: [{ name: 'edge' }] }, null);
    expect(classify(p)).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, hop: 'proxy:edge' });
  });

  it('passes the contract statuses so 409 under a contract is IDEMPOTENCY_KEY_IN_USE', () => {
    const o = observationFromReport(complete(409), {}, { in_use_status: 409, mismatch_status: 422 });
    expect(classify(o)).toMatchObject({ code: Code.IDEMPOTENCY_KEY_IN_USE });
    expect(classify(observationFromReport(complete(409), {}, null))).toMatchObject({ code: Code.REMOTE_REJECTED });
  });

  it('classifies an over-limit body with complete framing as RESPONSE_TRUNCATED', () => {
    const o = observationFromReport(complete(200, { body_over_limit: true }), {}, null);
    expect(classify(o)).toMatchObject({ outcome: Outcome.committed, code: Code.RESPONSE_TRUNCATED, complete: false });
  });

  it('makes a 202 with a Location an async operation', () => {
    const o = observationFromReport(complete(202), { location: '/jobs/9' }, null);
    expect(classify(o)).toMatchObject({ outcome: Outcome.committed, code: null, async_operation: { status_url: '/jobs/9' } });
  });
});

describe('remoteRequestId', () => {
  it('finds the first request id header, case-insensitively, bounded', () => {
    expect(remoteRequestId([['X-Request-Id', 'abc']])).toBe('abc');
    expect(remoteRequestId([['content-type', 'x']])).toBeUndefined();
    expect(remoteRequestId([['request-id', 'x'.repeat(500)]])?.length).toBe(200);
  });
});
