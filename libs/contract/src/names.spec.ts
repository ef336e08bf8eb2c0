import { describe, expect, it } from 'vitest';
import { INVOCATION_ID_PATTERN, isInvocationId, newInvocationId } from './invocation-id.js';
import { resourceNames, subjects } from './names.js';

describe('subjects', () => {
  const s = subjects('postern');
  it('names every subject of the contract under the prefix', () => {
    expect(s.actionsSubmit).toBe('postern.v1.actions.submit');
    expect(s.actionsAwait).toBe('postern.v1.actions.await');
    expect(s.resultsAck).toBe('postern.v1.results.ack');
    expect(s.approvalsDecide).toBe('postern.v1.approvals.decide');
    expect(s.operatorAttest).toBe('postern.v1.operator.attest');
    expect(s.vaultUnlock).toBe('postern.v1.vault.unlock');
    expect(s.credentialsRevoke).toBe('postern.v1.credentials.revoke');
    expect(s.projectorReplay).toBe('postern.v1.projector.replay');
    expect(s.evt('act_X')).toBe('postern.v1.evt.act_X');
    expect(s.evtAll).toBe('postern.v1.evt.>');
  });
  it('keeps brokers with different prefixes apart', () => {
    const other = subjects('b2');
    const mine = Object.values(s).filter((v): v is string => typeof v === 'string');
    for (const v of Object.values(other)) if (typeof v === 'string') expect(mine).not.toContain(v);
  });
});

describe('resourceNames', () => {
  it('derives stream, buckets and stores from the prefix', () => {
    expect(resourceNames('postern')).toEqual({
      stream: 'POSTERN_EVENTS',
      requests: 'postern_requests',
      idempotency: 'postern_idempotency',
      leases: 'postern_leases',
      credentials: 'postern_credentials',
      results: 'postern_results',
      payloads: 'postern_payloads',
    });
  });
});

describe('newInvocationId', () => {
  const zeros = new Uint8Array(10);
  it('is act_ and 26 Crockford characters', () => {
    const id = newInvocationId(1_700_000_000_000, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]));
    expect(id).toMatch(INVOCATION_ID_PATTERN);
    expect(isInvocationId(id)).toBe(true);
  });
  it('encodes time and randomness like a ULID', () => {
    expect(newInvocationId(0, zeros)).toBe('act_00000000000000000000000000');
    expect(newInvocationId(2 ** 48 - 1, new Uint8Array(10).fill(255))).toBe('act_7ZZZZZZZZZZZZZZZZZZZZZZZZZ');
    // The ULID specification's example time.
    expect(newInvocationId(1469918176385, zeros)).toBe(`act_01ARYZ6S41${'0'.repeat(16)}`);
  });
  it('sorts by time', () => {
    expect(newInvocationId(1000, zeros) < newInvocationId(1001, zeros)).toBe(true);
  });
  it('refuses a bad time or too few random bytes', () => {
    expect(() => newInvocationId(-1, zeros)).toThrowError(/nowMs/);
    expect(() => newInvocationId(1.5, zeros)).toThrowError(/nowMs/);
    expect(() => newInvocationId(1, new Uint8Array(9))).toThrowError(/random/);
  });
});
