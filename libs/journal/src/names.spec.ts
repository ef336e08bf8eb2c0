import { describe, expect, it } from 'vitest';
import { InvalidNameError, journalNames } from './names.js';

describe('journalNames', () => {
  it('derives every resource from the prefix', () => {
    const n = journalNames('postern');
    expect(n.stream).toBe('POSTERN_EVENTS');
    expect(n.eventSubjects).toBe('postern.v1.evt.>');
    expect(n.eventSubject('act_01J')).toBe('postern.v1.evt.act_01J');
    expect(n.kv).toEqual({
      requests: 'postern_requests',
      idempotency: 'postern_idempotency',
      leases: 'postern_leases',
      credentials: 'postern_credentials',
    });
    expect(n.objects).toEqual({ results: 'postern_results', payloads: 'postern_payloads' });
    expect(n.consumer('dispatcher')).toBe('postern_dispatcher');
  });

  it('refuses names that would leave their subject token', () => {
    expect(() => journalNames('a.b')).toThrow(InvalidNameError);
    expect(() => journalNames('')).toThrow(InvalidNameError);
    const n = journalNames('p');
    expect(() => n.eventSubject('x.y')).toThrow(InvalidNameError);
    expect(() => n.eventSubject('>')).toThrow(InvalidNameError);
    expect(() => n.consumer('a b')).toThrow(InvalidNameError);
  });
});
