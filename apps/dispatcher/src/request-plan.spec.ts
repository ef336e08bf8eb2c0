import { describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { fixtureBinding, fixtureCommand, fixturePolicy } from './binding.fixture.js';
import { callerHeadersOf, planRequest, targetOf } from './request-plan.js';

const secret = new TextEncoder().encode('s3cr3t-value');

describe('targetOf', () => {
  it('splits a bound HTTP target into origin, socket target and request line', () => {
    const bound = targetOf(fixtureBinding());
    expect(bound).toEqual({
      target: { scheme: 'http', host: '127.0.0.1', port: 8080 },
      origin: 'http://127.0.0.1:8080',
      path: '/v1/things?x=1',
    });
  });

  it('fills in the default https port and a bare path', () => {
    const b = { ...fixtureBinding(), target: 'https://api.example.com:443/' };
    expect(targetOf(b)).toEqual({ target: { scheme: 'https', host: 'api.example.com', port: 443 }, origin: 'https://api.example.com:443', path: '/' });
  });

  it('gives sockets a bare IPv6 address', () => {
    const b = { ...fixtureBinding(), target: 'http://[::1]:9000/x' };
    expect(targetOf(b)?.target.host).toBe('::1');
  });

  it('refuses what is not HTTP', () => {
    expect(targetOf({ ...fixtureBinding(), target: 'ssh://10.0.0.5:22' })).toBeNull();
  });
});

describe('planRequest', () => {
  const binding = fixtureBinding();
  const bound = targetOf(binding)!;

  it('sends the bound method and path with the caller headers and a bearer token', () => {
    const req = planRequest({ binding, bound, callerHeaders: { accept: 'application/json' }, credential: { type: CredentialType.http_bearer }, secret, body: null });
    expect(req).toEqual({ method: 'GET', path: '/v1/things?x=1', headers: { accept: 'application/json', authorization: 'Bearer s3cr3t-value' } });
  });

  it('puts a query credential after the bound query', () => {
    const req = planRequest({ binding, bound, callerHeaders: {}, credential: { type: CredentialType.http_query, param: 'api_key' }, secret, body: null });
    expect(req.path).toBe('/v1/things?x=1&api_key=s3cr3t-value');
    expect(req.headers).toEqual({});
  });

  it('uses the named header and Basic with the user', () => {
    const h = planRequest({ binding, bound, callerHeaders: {}, credential: { type: CredentialType.http_header, header_name: 'X-Api-Key' }, secret, body: null });
    expect(h.headers['X-Api-Key']).toBe('s3cr3t-value');
    const b = planRequest({ binding, bound, callerHeaders: {}, credential: { type: CredentialType.http_basic, user: 'bob' }, secret, body: null });
    expect(b.headers['authorization']).toBe(`Basic ${Buffer.from('bob:s3cr3t-value').toString('base64')}`);
  });

  it('sends the contract key in the policy header and carries the stored body', () => {
    const policy = fixturePolicy();
    const command = { ...fixtureCommand('https://api.example.com/v1/charges'), idempotency_key: 'k-1' };
    command.http = { ...command.http!, method: 'POST' };
    const b = fixtureBinding(command, policy);
    const body = new TextEncoder().encode('{"amount":5}');
    const req = planRequest({ binding: b, bound: targetOf(b)!, callerHeaders: { 'idempotency-key': 'caller-try' }, credential: { type: CredentialType.http_bearer }, secret, body });
    expect(req.method).toBe('POST');
    expect(req.headers['Idempotency-Key']).toBe('k-1');
    expect(req.headers['idempotency-key']).toBeUndefined();
    expect(req.body).toEqual(body);
  });
});

describe('callerHeadersOf', () => {
  it('reads string headers of the recorded command and nothing else', () => {
    expect(callerHeadersOf({ http: { headers: { a: '1', b: 2 } } })).toEqual({ a: '1' });
    expect(callerHeadersOf(null)).toEqual({});
    expect(callerHeadersOf({ http: null })).toEqual({});
  });
});
