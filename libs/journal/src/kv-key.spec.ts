import { describe, expect, it } from 'vitest';
import { decodeKvKey, encodeKvKey } from './kv-key.js';

const VALID_KEY = /^[-/_=.a-zA-Z0-9]+$/;

describe('encodeKvKey', () => {
  const samples = [
    'req-7f3a',
    'payments.create/charge-2026-11-29-001',
    'has space',
    'ünïcødé',
    'a..b',
    '.leading',
    'trailing.',
    '=starts-with-escape',
    'colon:and*star>',
    '',
  ];

  it('keeps valid keys readable and escapes the rest into valid keys', () => {
    expect(encodeKvKey('req-7f3a')).toBe('req-7f3a');
    expect(encodeKvKey('payments.create/charge-1')).toBe('payments.create/charge-1');
    for (const raw of samples) {
      const key = encodeKvKey(raw);
      expect(key).toMatch(VALID_KEY);
      expect(key.split('.').every((t) => t.length > 0)).toBe(true);
    }
  });

  it('round-trips and is deterministic and injective on the samples', () => {
    const keys = samples.map(encodeKvKey);
    expect(samples.map(encodeKvKey)).toEqual(keys);
    expect(new Set(keys).size).toBe(samples.length);
    for (const raw of samples) expect(decodeKvKey(encodeKvKey(raw))).toBe(raw);
  });
});
