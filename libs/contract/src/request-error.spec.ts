import { describe, expect, it } from 'vitest';
import { CODES, Code } from './code.js';
import { CODE_PHASE } from './code-phase.js';
import { MESSAGES } from './messages.js';
import { Phase } from './phase.js';
import { requestError } from './request-error.js';

describe('requestError', () => {
  it('BAD_REQUEST is validation, not_attempted, after_correction', () => {
    expect(requestError(Code.BAD_REQUEST)).toEqual({
      error: { code: 'BAD_REQUEST', phase: 'validation', outcome: 'not_attempted', retry: 'after_correction', message: MESSAGES.BAD_REQUEST },
    });
  });
  it('NOT_FOUND is never retried', () => {
    expect(requestError(Code.NOT_FOUND).error.retry).toBe('never');
  });
  it('a reused client_request_id names the field', () => {
    expect(requestError(Code.IDEMPOTENCY_MISMATCH, 'Another command used this id.').error).toEqual({
      code: 'IDEMPOTENCY_MISMATCH',
      phase: 'validation',
      outcome: 'not_attempted',
      retry: 'after_correction',
      message: 'Another command used this id.',
      field: 'client_request_id',
    });
  });
  it('takes a field and overrides', () => {
    const e = requestError(Code.RESULT_EXPIRED, undefined, undefined, { outcome: 'committed' }).error;
    expect(e).toMatchObject({ code: 'RESULT_EXPIRED', phase: 'result_delivery', outcome: 'committed', retry: 'never' });
    expect(requestError(Code.DIGEST_MISMATCH, 'm', 'result_digest').error.field).toBe('result_digest');
  });
});

describe('CODE_PHASE and MESSAGES', () => {
  it('every code has a phase entry and a message', () => {
    for (const code of CODES) {
      expect(code in CODE_PHASE).toBe(true);
      expect(MESSAGES[code].length).toBeGreaterThan(5);
    }
  });
  it('follows section 11', () => {
    expect(CODE_PHASE.PAYLOAD_LIMIT).toBe(Phase.validation);
    expect(CODE_PHASE.VAULT_LOCKED).toBe(Phase.credential_injection);
    expect(CODE_PHASE.SSH_AUTH_FAILED).toBe(Phase.connection_setup);
    expect(CODE_PHASE.CALLER_CANCELLED).toBe(Phase.remote_execution);
    expect(CODE_PHASE.RESULT_EXPIRED).toBe(Phase.result_delivery);
    expect(CODE_PHASE.NOT_FOUND).toBeNull();
    expect(CODE_PHASE.ALREADY_RESOLVED).toBeNull();
  });
});
