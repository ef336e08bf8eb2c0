import { describe, expect, it } from 'vitest';
import { filterResponseHeaders, headerValue, parseProxyStatus, parseRetryAfter } from './response-headers.js';

describe('filterResponseHeaders', () => {
  it('keeps only allow-listed names, lower-cased, and the extra ones', () => {
    const out = filterResponseHeaders(
      [
        ['Content-Type', 'application/json'],
        ['Set-Cookie', 'session=abc'],
        ['X-Request-Id', 'r1'],
        ['CF-Ray', 'ray'],
        ['X-Custom', 'c'],
        ['Server', 'nginx'],
      ],
      ['X-Custom'],
    );
    expect(out).toEqual({ 'content-type': 'application/json', 'x-request-id': 'r1', 'cf-ray': 'ray', 'x-custom': 'c' });
  });

  it('joins repeated headers', () => {
    expect(filterResponseHeaders([['ETag', 'a'], ['etag', 'b']])).toEqual({ etag: 'a, b' });
  });

  it('headerValue is case-insensitive', () => {
    expect(headerValue([['Retry-After', '5']], 'retry-after')).toBe('5');
    expect(headerValue(null, 'x')).toBeUndefined();
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-01T00:00:00Z');
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });
  it('reads an HTTP-date relative to now, never negative', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', now)).toBe(0);
  });
  it('ignores garbage', () => {
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});

describe('parseProxyStatus', () => {
  it('reads entries with error and details', () => {
    expect(parseProxyStatus('proxy; error=http_response_incomplete; details="upstream closed"')).toEqual([
      { name: 'proxy', error: 'http_response_incomplete', details: 'upstream closed', params: { error: 'http_response_incomplete', details: 'upstream closed' } },
    ]);
  });
  it('reads a list, quoted names, commas inside quotes, numbers and booleans', () => {
    const out = parseProxyStatus('"edge, 1"; error=connection_timeout; rcode=504, origin-gw; received-status=200; flag');
    expect(out).toHaveLength(2);
    expect(out[0]).toMatchObject({ name: 'edge, 1', error: 'connection_timeout', params: { rcode: 504 } });
    expect(out[1]).toMatchObject({ name: 'origin-gw', params: { 'received-status': 200, flag: true } });
  });
  it('is empty for nothing', () => {
    expect(parseProxyStatus(undefined)).toEqual([]);
    expect(parseProxyStatus('')).toEqual([]);
  });
});
