import { describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { checkSecret, parsePutInput } from './credential-input.js';
import { parseScope } from './scope.js';

const base = { id: 'payments-api', type: 'http_bearer', scope: ['https://api.example.com'], secret_sealed: 'AAAA' };
const fieldOf = (input: unknown): string | null => {
  const r = parsePutInput(input);
  return r.ok ? null : r.field;
};
const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('parsePutInput', () => {
  it('accepts a bearer credential and defaults approval to none', () => {
    const r = parsePutInput(base);
    expect(r.ok && r.value.meta).toEqual({ id: 'payments-api', type: 'http_bearer', scope: ['https://api.example.com'], approval: 'none' });
  });

  it('checks the id, type and scope', () => {
    expect(fieldOf({ ...base, id: '' })).toBe('id');
    expect(fieldOf({ ...base, id: 'a b' })).toBe('id');
    expect(fieldOf({ ...base, id: 'x'.repeat(129) })).toBe('id');
    expect(fieldOf({ ...base, type: 'oauth' })).toBe('type');
    expect(fieldOf({ ...base, scope: [] })).toBe('scope');
    expect(fieldOf({ ...base, scope: ['https://api.example.com/path'] })).toBe('scope.0');
    expect(fieldOf({ ...base, scope: ['ssh://deploy@10.0.0.5'] })).toBe('scope.0');
    expect(fieldOf([base])).toBe('id');
  });

  it('needs header_name for http_header and param for http_query, and nowhere else', () => {
    expect(fieldOf({ ...base, type: 'http_header' })).toBe('header_name');
    expect(fieldOf({ ...base, type: 'http_header', header_name: 'Host' })).toBe('header_name');
    expect(fieldOf({ ...base, type: 'http_header', header_name: 'X-Api-Key' })).toBeNull();
    expect(fieldOf({ ...base, type: 'http_query' })).toBe('param');
    expect(fieldOf({ ...base, type: 'http_query', param: 'api_key' })).toBeNull();
    expect(fieldOf({ ...base, header_name: 'X-Api-Key' })).toBe('header_name');
  });

  it('needs a user for SSH credentials whose scopes name that user', () => {
    const ssh = { ...base, type: 'ssh_key', scope: ['ssh://deploy@10.0.0.5:*'] };
    expect(fieldOf(ssh)).toBe('user');
    expect(fieldOf({ ...ssh, user: 'deploy' })).toBeNull();
    expect(fieldOf({ ...ssh, user: 'root' })).toBe('scope.0');
    expect(fieldOf({ ...ssh, user: 'deploy', scope: ['https://api.example.com'] })).toBe('scope.0');
    expect(fieldOf({ ...base, user: 'bob' })).toBe('user');
    expect(fieldOf({ ...base, type: 'http_basic', user: 'bob' })).toBeNull();
  });

  it('checks approval and requires secret_sealed', () => {
    expect(fieldOf({ ...base, approval: 'always' })).toBe('approval');
    const r = parsePutInput({ ...base, approval: 'per_call' });
    expect(r.ok && r.value.meta.approval).toBe('per_call');
    expect(fieldOf({ ...base, secret_sealed: undefined })).toBe('secret_sealed');
  });
});

describe('checkSecret', () => {
  const bearer = { id: 'a', type: CredentialType.http_bearer, scope: [], approval: 'none' as const };
  it('refuses empty secrets and line breaks in HTTP secrets', () => {
    expect(checkSecret(bearer, new Uint8Array(0)).ok).toBe(false);
    expect(checkSecret(bearer, enc('abc\r\nX-Evil: 1')).ok).toBe(false);
    expect(checkSecret(bearer, enc('abc')).ok).toBe(true);
  });
  it('needs user:password for http_basic without a user', () => {
    const basic = { ...bearer, type: CredentialType.http_basic };
    expect(checkSecret(basic, enc('password')).ok).toBe(false);
    expect(checkSecret(basic, enc('bob:password')).ok).toBe(true);
    expect(checkSecret({ ...basic, user: 'bob' }, enc('password')).ok).toBe(true);
  });
});

describe('parseScope', () => {
  it('parses HTTP origins and SSH targets with users', () => {
    expect(parseScope('https://API.example.com')).toEqual({ ok: true, scope: { scheme: 'https', host: 'api.example.com', port: 443, user: null } });
    expect(parseScope('ssh://deploy@10.0.0.5:*')).toEqual({ ok: true, scope: { scheme: 'ssh', host: '10.0.0.5', port: '*', user: 'deploy' } });
    expect(parseScope('ssh://10.0.0.5').ok).toBe(false);
    expect(parseScope('ftp://x').ok).toBe(false);
  });
});
