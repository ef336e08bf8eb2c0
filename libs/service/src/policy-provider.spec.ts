import { describe, expect, it } from 'vitest';
import { policyRefusalFields } from './policy-provider.js';

describe('policyRefusalFields', () => {
  it('names what to fix and where, and that the last good policy stays', () => {
    const fields = policyRefusalFields({
      name: 'PolicyFileError',
      errors: [
        { path: '(file)', reason: 'line 48, column 1: Unexpected scalar at node end' },
        { path: 'targets.0.match', reason: 'must be a string' },
      ],
    });
    expect(fields).toEqual({
      error: 'PolicyFileError',
      problems: '(file): line 48, column 1: Unexpected scalar at node end; targets.0.match: must be a string',
      kept: 'the last good policy',
    });
  });

  it('gives only the error name for a failure without listed problems (an unreadable file)', () => {
    expect(policyRefusalFields({ name: 'Error' })).toEqual({ error: 'Error' });
    expect(policyRefusalFields({ name: 'PolicyFileError', errors: [] })).toEqual({ error: 'PolicyFileError' });
  });
});
