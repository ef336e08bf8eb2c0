import { describe, expect, it } from 'vitest';
import { secretForms } from '@postern/transport-http';
import { announcedFraming, classificationData, completeData, unknownData } from './attempt-evidence.js';
import { responseFacts } from './response-facts.js';
import { classify, Code, Outcome } from '@postern/contract';
import type { HttpExchangeReport } from '@postern/transport-http';

const forms = secretForms(new TextEncoder().encode('tok-123456'));

describe('responseFacts', () => {
  it('reads Retry-After in seconds and says the origin answered', () => {
    expect(responseFacts([['Retry-After', '7']], 0, forms)).toEqual({ hop: 'origin', retry_after_ms: 7000 });
  });

  it('names the proxy that reported an error', () => {
    const f = responseFacts([['Proxy-Status', 'edge; error=connection_refused, inner']], 0, forms);
    expect(f.hop).toBe('proxy:edge');
    expect(f.proxy_status).toHaveLength(2);
  });

  it('removes the secret from values the remote chose', () => {
    const f = responseFacts(
      [
        ['X-Request-Id', 'id-tok-123456'],
        ['Location', '/next?key=tok-123456'],
      ],
      0,
      forms,
    );
    expect(f.remote_request_id).toBe('id-[REDACTED]');
    expect(f.location).toBe('/next?key=[REDACTED]');
    expect(JSON.stringify(f)).not.toContain('tok-123456');
  });
});

describe('attempt evidence', () => {
  const report: HttpExchangeReport = {
    connection_id: 'c-1',
    connection_reused: true,
    write_failed: false,
    request_headers_sent: true,
    request_complete: true,
    interim_statuses: [],
    response_started: true,
    status: 201,
    headers: [],
    headers_complete: true,
    framing: 'chunked',
    body_complete: true,
    body_bytes_read: 3,
    body_bytes_passed: 3,
    body_over_limit: false,
    broker_timeout: null,
    ended_by: 'complete',
    keep_alive: true,
  };

  it('writes the classification and the flags of a complete response with its stored result', () => {
    const c = classify({ kind: 'http', connection_reused: true, write_failed: false, request_complete: true, response_started: true, status: 201, body_complete: true, broker_timeout: false, body_over_limit: false, contract: null });
    const data = completeData(c, report, { remote_request_id: 'r-1' }, { result_object: 'act_x.1', result_digest: 'sha256:ab' });
    expect(data).toEqual({
      phase: 'remote_execution',
      outcome: Outcome.committed,
      code: null,
      retry_rule: 'never',
      stage: 'response_body',
      request_headers_sent: true,
      request_complete: true,
      response_headers_received: true,
      response_complete: true,
      response_status: 201,
      framing: 'chunked',
      remote_request_id: 'r-1',
      response_digest: 'sha256:ab',
      result_object: 'act_x.1',
    });
  });

  it('keeps the transport diagnostic and the timeout on an unknown outcome', () => {
    const r = { ...report, status: null, headers: null, headers_complete: false, framing: null, body_complete: false, broker_timeout: 'response_headers' as const, ended_by: 'timeout' as const, diagnostic: 'ETIMEDOUT' };
    const c = classify({ kind: 'http', connection_reused: true, write_failed: false, request_complete: true, response_started: false, status: null, body_complete: false, broker_timeout: true, body_over_limit: false, contract: null });
    const data = unknownData(c, r, {});
    expect(data).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_OUTCOME_UNKNOWN, response_headers_received: false, diagnostic: 'timeout:ETIMEDOUT', broker_timeout: 'response_headers' });
    expect(data['response_status']).toBeUndefined();
  });

  it('copies only the optional classification fields that are set', () => {
    expect(Object.keys(classificationData(classify({ kind: 'recovery' })))).toEqual(['phase', 'outcome', 'code', 'retry_rule', 'stage', 'recovered']);
  });

  it('reads the announced framing of a head', () => {
    expect(announcedFraming([['Transfer-Encoding', 'gzip, chunked']])).toBe('chunked');
    expect(announcedFraming([['Content-Length', '3']])).toBe('content-length');
    expect(announcedFraming([])).toBe('close');
  });
});
