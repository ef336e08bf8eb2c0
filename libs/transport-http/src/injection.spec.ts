import { describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { injectCredential, InjectionModeError, redact, redactText, secretForms } from './injection.js';

const secret = new TextEncoder().encode('s3cr3t/+ value=');
const base = { path: '/v1/items?x=1', headers: { host: 'api', Authorization: 'caller-supplied' } };

describe('injectCredential', () => {
  it('http_bearer replaces any Authorization header', () => {
    const r = injectCredential(base, { type: CredentialType.http_bearer }, secret);
    expect(r.headers).toEqual({ host: 'api', authorization: 'Bearer s3cr3t/+ value=' });
    expect(r.path).toBe(base.path);
  });

  it('http_basic with a user encodes user:secret', () => {
    const r = injectCredential(base, { type: CredentialType.http_basic, user: 'bot' }, secret);
    expect(r.headers['authorization']).toBe(`Basic ${Buffer.from('bot:s3cr3t/+ value=').toString('base64')}`);
  });

  it('http_basic without a user encodes the secret as user:pass', () => {
    const r = injectCredential(base, { type: CredentialType.http_basic }, new TextEncoder().encode('u:p'));
    expect(r.headers['authorization']).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
  });

  it('http_header sets the named header, replacing a same-named one in any case', () => {
    const r = injectCredential({ path: '/', headers: { 'x-api-key': 'old' } }, { type: CredentialType.http_header, header_name: 'X-Api-Key' }, secret);
    expect(r.headers).toEqual({ 'X-Api-Key': 's3cr3t/+ value=' });
  });

  it('http_query appends the URL-encoded parameter', () => {
    expect(injectCredential(base, { type: CredentialType.http_query, param: 'api_key' }, secret).path).toBe('/v1/items?x=1&api_key=s3cr3t%2F%2B%20value%3D');
    expect(injectCredential({ path: '/p', headers: {} }, { type: CredentialType.http_query, param: 'k' }, secret).path).toBe('/p?k=s3cr3t%2F%2B%20value%3D');
    expect(injectCredential({ path: '/p?', headers: {} }, { type: CredentialType.http_query, param: 'k' }, secret).path).toBe('/p?k=s3cr3t%2F%2B%20value%3D');
  });

  it('does not change the input request', () => {
    const req = { path: '/a', headers: { a: '1' } };
    injectCredential(req, { type: CredentialType.http_bearer }, secret);
    expect(req).toEqual({ path: '/a', headers: { a: '1' } });
  });

  it('refuses SSH types and missing names', () => {
    expect(() => injectCredential(base, { type: CredentialType.ssh_key }, secret)).toThrow(InjectionModeError);
    expect(() => injectCredential(base, { type: CredentialType.http_header }, secret)).toThrow(InjectionModeError);
    expect(() => injectCredential(base, { type: CredentialType.http_query }, secret)).toThrow(InjectionModeError);
  });
});

describe('secretForms and redact', () => {
  const forms = secretForms(secret, { user: 'bot' });
  const raw = 's3cr3t/+ value=';
  const encoded = [
    raw,
    Buffer.from(raw).toString('base64'),
    Buffer.from(raw).toString('base64url'),
    Buffer.from(raw).toString('hex'),
    Buffer.from(raw).toString('hex').toUpperCase(),
    encodeURIComponent(raw),
    Buffer.from(`bot:${raw}`).toString('base64'),
  ];

  it('lists raw, base64, base64url, hex, URL-encoded and the Basic token', () => {
    for (const e of encoded) expect(forms).toContain(e);
  });

  it('redacts every form in bytes', () => {
    for (const e of encoded) {
      const out = Buffer.from(redact(new TextEncoder().encode(`a ${e} b ${e}`), forms)).toString();
      expect(out).toBe('a [REDACTED] b [REDACTED]');
    }
  });

  it('redacts in text, longest form first', () => {
    expect(redactText(`Basic ${Buffer.from(`bot:${raw}`).toString('base64')}`, forms)).toBe('Basic [REDACTED]');
    expect(redactText(`token=${encodeURIComponent(raw)}&x`, forms)).toBe('token=[REDACTED]&x');
  });

  it('redacts the JSON-escaped form', () => {
    const quoted = new TextEncoder().encode('p"w\\d');
    const f = secretForms(quoted);
    expect(redactText(JSON.stringify({ echoed: 'p"w\\d' }), f)).toBe('{"echoed":"[REDACTED]"}');
  });

  it('leaves unrelated bytes untouched', () => {
    const input = new TextEncoder().encode('nothing secret here');
    expect(Buffer.from(redact(input, forms)).toString()).toBe('nothing secret here');
  });

  it('does not shred text with very short encodings of a tiny secret', () => {
    const tiny = secretForms(new TextEncoder().encode('ab'));
    expect(tiny).toContain('ab');
    expect(tiny.every((f) => f.length >= 4 || f === 'ab')).toBe(true);
  });
});
