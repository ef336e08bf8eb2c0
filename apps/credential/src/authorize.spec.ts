import { describe, expect, it } from 'vitest';
import { Code, CredentialType } from '@postern/contract';
import { authorize, type AuthorizeInput } from './authorize.js';
import { bindingFor, meta } from './credential-test-fixtures.js';

const ready = (over: Partial<AuthorizeInput> = {}): AuthorizeInput => {
  const current = meta();
  return { binding: bindingFor(current), vault: 'ready', current, decrypts: true, ...over };
};
const codeOf = (input: AuthorizeInput): Code | null => {
  const verdict = authorize(input);
  return verdict.kind === 'rejected' ? verdict.code : null;
};

describe('authorize', () => {
  it('authorizes a current credential whose scope covers the target', () => {
    expect(authorize(ready())).toEqual({
      kind: 'authorized',
      credential: { id: 'payments-api', version: 1, injection: CredentialType.http_bearer },
    });
  });

  it('a locked or uninitialized vault is VAULT_LOCKED with vault_unlock, before anything else', () => {
    for (const vault of ['locked', 'uninitialized'] as const) {
      const verdict = authorize(ready({ vault, current: null, decrypts: null }));
      expect(verdict).toMatchObject({ kind: 'rejected', code: Code.VAULT_LOCKED, action_required: 'vault_unlock' });
    }
  });

  it('a missing, revoked or replaced credential is CREDENTIAL_MISSING', () => {
    expect(codeOf(ready({ current: null, decrypts: null }))).toBe(Code.CREDENTIAL_MISSING);
    expect(codeOf(ready({ current: meta({ revoked: true }) }))).toBe(Code.CREDENTIAL_MISSING);
    expect(codeOf(ready({ current: meta({ version: 2 }), decrypts: null }))).toBe(Code.CREDENTIAL_MISSING);
  });

  it('a credential type that cannot serve the action is INJECTION_MODE_UNSUPPORTED', () => {
    const ssh = meta({ type: CredentialType.ssh_key, user: 'deploy', scope: ['ssh://deploy@127.0.0.1:*'] });
    const binding = { ...bindingFor(meta()), credential: { id: ssh.id, version: 1, type: ssh.type, injection: ssh.type } };
    expect(codeOf({ binding, vault: 'ready', current: ssh, decrypts: true })).toBe(Code.INJECTION_MODE_UNSUPPORTED);
  });

  it('a target outside the scope is CREDENTIAL_SCOPE_MISMATCH', () => {
    const narrow = meta({ scope: ['https://other.example.com'] });
    expect(codeOf({ ...ready(), current: narrow, binding: bindingFor(narrow) })).toBe(Code.CREDENTIAL_SCOPE_MISMATCH);
  });

  it('matches scheme and port exactly unless the scope says *', () => {
    const fixed = meta({ scope: ['http://127.0.0.1:8080'] });
    expect(codeOf({ ...ready(), current: fixed, binding: bindingFor(fixed, 'http://127.0.0.1:8080/x') })).toBeNull();
    expect(codeOf({ ...ready(), current: fixed, binding: bindingFor(fixed, 'http://127.0.0.1:8081/x') })).toBe(Code.CREDENTIAL_SCOPE_MISMATCH);
    const https = meta({ scope: ['https://127.0.0.1:*'] });
    expect(codeOf({ ...ready(), current: https, binding: bindingFor(https, 'http://127.0.0.1:8080/x') })).toBe(Code.CREDENTIAL_SCOPE_MISMATCH);
    const defaultPort = meta({ scope: ['https://api.example.com'] });
    expect(codeOf({ ...ready(), current: defaultPort, binding: bindingFor(defaultPort, 'https://api.example.com:8443/') })).toBe(
      Code.CREDENTIAL_SCOPE_MISMATCH,
    );
  });

  it('an SSH scope must name the credential user', () => {
    const ssh = meta({ type: CredentialType.ssh_key, user: 'deploy', scope: ['ssh://deploy@127.0.0.1:*'] });
    expect(authorize({ binding: bindingFor(ssh, 'ssh://127.0.0.1:2222'), vault: 'ready', current: ssh, decrypts: true }).kind).toBe('authorized');
    const other = { ...ssh, scope: ['ssh://root@127.0.0.1:*'] };
    expect(codeOf({ binding: bindingFor(other, 'ssh://127.0.0.1:2222'), vault: 'ready', current: other, decrypts: true })).toBe(
      Code.CREDENTIAL_SCOPE_MISMATCH,
    );
  });

  it('a version that does not decrypt is CREDENTIAL_DECRYPT_FAILED', () => {
    expect(codeOf(ready({ decrypts: false }))).toBe(Code.CREDENTIAL_DECRYPT_FAILED);
  });

  it('a per_call credential waits for an approval instead of being authorized', () => {
    const perCall = meta({ approval: 'per_call' });
    expect(authorize({ ...ready(), current: perCall, binding: bindingFor(perCall) })).toEqual({ kind: 'awaiting_approval' });
  });

  it('messages never name the credential', () => {
    for (const input of [ready({ vault: 'locked' }), ready({ current: null }), ready({ decrypts: false })]) {
      const verdict = authorize(input);
      expect(verdict.kind).toBe('rejected');
      if (verdict.kind === 'rejected') expect(verdict.message).not.toContain('payments-api');
    }
  });
});
