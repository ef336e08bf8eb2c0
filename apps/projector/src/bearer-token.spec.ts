import { describe, expect, it } from 'vitest';
import { bearerMatches } from './bearer-token.js';

describe('bearerMatches', () => {
  it('accepts exactly the token after "Bearer "', () => {
    expect(bearerMatches('Bearer s3cret', 's3cret')).toBe(true);
    expect(bearerMatches('bearer s3cret', 's3cret')).toBe(true);
  });

  it.each([undefined, '', 's3cret', 'Bearer', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 'Bearer s3cret extra'])(
    'refuses %j',
    (header) => {
      expect(bearerMatches(header, 's3cret')).toBe(false);
    },
  );
});
