import { describe, expect, it } from 'vitest';
import { locateJsonError } from './json-position.js';

describe('locateJsonError', () => {
  it('returns null for valid JSON, as JSON.parse accepts it', () => {
    for (const text of ['{}', ' [1, -2.5e3, "a\\u00e9\\n", true, false, null, {"a": {}}] ', '"x"', '0']) {
      expect(() => JSON.parse(text)).not.toThrow();
      expect(locateJsonError(text)).toBeNull();
    }
  });

  it.each([
    ['{"a":}', 5, 'expected a value'],
    ['{"a":1', 6, 'unexpected end of input'],
    ['{"a":1}x', 7, 'after the JSON value'],
    ['[1,2,]', 5, 'expected a value'],
    ['{"a" 1}', 5, "expected ':'"],
    ['{a:1}', 1, 'property name in double quotes'],
    ['"abc', 4, 'unterminated string'],
    ['', 0, 'unexpected end of input'],
    ['{"a":"\\q"}', 6, 'bad escape'],
    ['[01]', 2, "expected ',' or ']'"],
  ])('locates the error in %j at offset %i', (text, offset, reason) => {
    expect(() => JSON.parse(text)).toThrow();
    const at = locateJsonError(text);
    expect(at?.offset).toBe(offset);
    expect(at?.reason).toContain(reason);
  });

  it('gives 1-based line and column', () => {
    const text = '{\n  "a": 1,\n  "b": tru\n}';
    expect(locateJsonError(text)).toMatchObject({ line: 3, column: 8 });
  });
});
