import { describe, expect, it } from 'vitest';
import { followUpMethod, proxyAddress, sameOriginLocation, withoutBodyHeaders } from './redirect-follow.js';
import type { BoundTarget } from './request-plan.js';

const bound: BoundTarget = { target: { scheme: 'http', host: '127.0.0.1', port: 8080 }, origin: 'http://127.0.0.1:8080', path: '/v1/a?x=1' };
const at = (location: string, status = 302, extra: Partial<Parameters<typeof sameOriginLocation>[0]> = {}) =>
  sameOriginLocation({ status, headers: [['Location', location]], bound, secretForms: ['s3cret-token'], ...extra });

describe('sameOriginLocation', () => {
  it('follows a relative or same-origin absolute Location as path and query', () => {
    expect(at('/v1/b?y=2')).toBe('/v1/b?y=2');
    expect(at('b')).toBe('/v1/b');
    expect(at('http://127.0.0.1:8080/v1/c')).toBe('/v1/c');
    expect(at('/v1/d#frag')).toBe('/v1/d');
  });

  it('never follows to another scheme, host or port, or with userinfo', () => {
    expect(at('https://127.0.0.1:8080/x')).toBeNull();
    expect(at('http://localhost:8080/x')).toBeNull();
    expect(at('http://127.0.0.1:8081/x')).toBeNull();
    expect(at('//evil.example/x')).toBeNull();
    expect(at('http://u:p@127.0.0.1:8080/x')).toBeNull();
  });

  it('only for 301, 302, 303, 307 and 308 with exactly one Location', () => {
    expect(at('/x', 300)).toBeNull();
    expect(at('/x', 304)).toBeNull();
    for (const s of [301, 302, 303, 307, 308]) expect(at('/x', s)).toBe('/x');
    expect(sameOriginLocation({ status: 302, headers: [], bound, secretForms: [] })).toBeNull();
    expect(sameOriginLocation({ status: 302, headers: [['location', '/a'], ['Location', '/b']], bound, secretForms: [] })).toBeNull();
  });

  it('drops the injected query parameter and refuses a Location that still carries the secret', () => {
    expect(at('/x?api_key=s3cret-token&q=1', 302, { queryParam: 'api_key' })).toBe('/x?q=1');
    expect(at('/x?token=s3cret-token')).toBeNull();
    expect(at('/s3cret%2Dtoken')).toBeNull();
  });
});

describe('followUpMethod', () => {
  it('turns a 303 into a GET without body and keeps the method for the others', () => {
    expect(followUpMethod('POST', 303)).toEqual({ method: 'GET', keepBody: false });
    expect(followUpMethod('HEAD', 303)).toEqual({ method: 'HEAD', keepBody: true });
    for (const s of [301, 302, 307, 308]) expect(followUpMethod('POST', s)).toEqual({ method: 'POST', keepBody: true });
  });

  it('drops the headers that describe a body that is no longer sent', () => {
    expect(withoutBodyHeaders({ 'Content-Type': 'application/json', Accept: 'x' })).toEqual({ Accept: 'x' });
  });
});

describe('proxyAddress', () => {
  it('reads an http proxy origin, and refuses what the transport cannot use', () => {
    expect(proxyAddress('http://127.0.0.1:3128')).toEqual({ host: '127.0.0.1', port: 3128 });
    expect(proxyAddress('http://proxy.internal')).toEqual({ host: 'proxy.internal', port: 80 });
    expect(proxyAddress('https://proxy.internal:3128')).toBeNull();
    expect(proxyAddress('not a url')).toBeNull();
  });
});
