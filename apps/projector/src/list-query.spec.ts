import { describe, expect, it } from 'vitest';
import { Code, Outcome, Phase } from '@postern/contract';
import { DEFAULT_LIMIT, MAX_LIMIT, parseInvocationFilter, parsePage } from './list-query.js';

describe('parseInvocationFilter', () => {
  it('defaults to the newest 50 without filters', () => {
    expect(parseInvocationFilter({})).toEqual({ ok: true, value: { limit: DEFAULT_LIMIT } });
  });

  it('takes valid enum values and numbers', () => {
    const r = parseInvocationFilter({
      outcome: Outcome.committed,
      phase: Phase.remote_execution,
      code: Code.REMOTE_REJECTED,
      after_seq: '10',
      limit: '3',
    });
    expect(r).toEqual({
      ok: true,
      value: { outcome: Outcome.committed, phase: Phase.remote_execution, code: Code.REMOTE_REJECTED, afterSeq: 10, limit: 3 },
    });
  });

  it.each([
    ['outcome', { outcome: 'maybe' }],
    ['phase', { phase: 'nowhere' }],
    ['code', { code: 'NOPE' }],
    ['after_seq', { after_seq: '-1' }],
    ['limit', { limit: 'many' }],
    ['limit', { limit: '0' }],
    ['outcome', { outcome: [Outcome.committed, Outcome.unknown] }],
  ])('refuses a bad %s, naming the field', (field, query) => {
    const r = parseInvocationFilter(query);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.defect.field).toBe(field);
  });

  it('caps the limit at 500', () => {
    const r = parsePage({ limit: '100000' });
    expect(r.ok && r.value.limit).toBe(MAX_LIMIT);
  });
});
