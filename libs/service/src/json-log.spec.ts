import { describe, expect, it } from 'vitest';
import { captureLog } from './testing/capture-log.js';
import { errorName, silentLog } from './json-log.js';

describe('log helpers', () => {
  it('names an error by its class name only, never its message', () => {
    class ProbeError extends Error {
      override readonly name = 'ProbeError';
    }
    expect(errorName(new ProbeError('secret-in-message'))).toBe('ProbeError');
    expect(errorName('secret-in-string')).toBe('string');
    expect(errorName(undefined)).toBe('undefined');
  });

  it('the captured log keeps level, event and fields of every line', () => {
    const lines: string[] = [];
    const log = captureLog(lines);
    log.info('a.started', { n: 1 });
    log.warn('a.refused', { reason: 'x' });
    log.error('a.failed');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { level: 'info', event: 'a.started', n: 1 },
      { level: 'warn', event: 'a.refused', reason: 'x' },
      { level: 'error', event: 'a.failed' },
    ]);
  });

  it('the silent log accepts every level', () => {
    expect(() => {
      silentLog.info('x');
      silentLog.warn('x');
      silentLog.error('x');
    }).not.toThrow();
  });
});
