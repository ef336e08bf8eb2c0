import { describe, expect, it } from 'vitest';
import { classify } from '@postern/contract';
import { secretForms, type HttpExchangeReport } from '@postern/transport-http';
import { fixturePolicy } from './binding.fixture.js';
import { resultToStore } from './stored-result.js';

const secret = 'tok-abcdef123';
const forms = secretForms(new TextEncoder().encode(secret));
const entry = { ...fixturePolicy().targets[0]!, response_headers: ['x-extra'] };
const text = (s: string) => new TextEncoder().encode(s);

function report(over: Partial<HttpExchangeReport> = {}): HttpExchangeReport {
  return {
    connection_id: 'c-1',
    connection_reused: false,
    write_failed: false,
    request_headers_sent: true,
    request_complete: true,
    interim_statuses: [],
    response_started: true,
    status: 200,
    headers: [
      ['Content-Type', 'text/plain'],
      ['Set-Cookie', 'session=1'],
      ['X-Extra', `echo ${secret}`],
      ['X-Request-Id', Buffer.from(secret).toString('base64')],
    ],
    headers_complete: true,
    framing: 'content-length',
    body_complete: true,
    body_bytes_read: 10,
    body_bytes_passed: 10,
    body_over_limit: false,
    broker_timeout: null,
    ended_by: 'complete',
    keep_alive: true,
    ...over,
  };
}

const committed = classify({ kind: 'http', connection_reused: false, write_failed: false, request_complete: true, response_started: true, status: 200, body_complete: true, broker_timeout: false, body_over_limit: false, contract: null });

describe('resultToStore', () => {
  it('keeps allow-listed and policy headers only, with every form of the secret redacted', () => {
    const r = resultToStore({ invocation_id: 'act_1', attempt: 1, status: 200, report: report(), entry, chunks: [text('a')], classification: committed, secretForms: forms });
    expect(r.headers).toEqual({ 'content-type': 'text/plain', 'x-extra': 'echo [REDACTED]', 'x-request-id': '[REDACTED]' });
  });

  it('joins the body chunks and redacts the secret in raw, hex and URL-encoded form', () => {
    const chunks = [text(`raw=${secret};`), text(`hex=${Buffer.from(secret).toString('hex')};`), text(`url=${encodeURIComponent(secret)}`)];
    const r = resultToStore({ invocation_id: 'act_1', attempt: 1, status: 200, report: report(), entry, chunks, classification: committed, secretForms: forms });
    expect(r.complete).toBe(true);
    expect(Buffer.from(r.body!).toString()).toBe('raw=[REDACTED];hex=[REDACTED];url=[REDACTED]');
  });

  it('stores no body for an over-limit response', () => {
    const over = report({ body_over_limit: true });
    const truncated = classify({ kind: 'http', connection_reused: false, write_failed: false, request_complete: true, response_started: true, status: 200, body_complete: true, broker_timeout: false, body_over_limit: true, contract: null });
    const r = resultToStore({ invocation_id: 'act_1', attempt: 2, status: 200, report: over, entry, chunks: [text('partial')], classification: truncated, secretForms: forms });
    expect(r).toMatchObject({ invocation_id: 'act_1', attempt: 2, status: 200, complete: false, body: null });
  });
});
