import { describe, expect, it } from 'vitest';
import type { ActionCommand } from './action-command.js';
import { Code } from './code.js';
import {
  buildBinding,
  checkPreflight,
  forbiddenHeaders,
  injectionSupported,
  knownIdempotent,
  normalizeTarget,
} from './preflight.js';
import type { CredentialMeta, DispatchPolicy, TargetPolicy } from './target-policy.js';

const target: TargetPolicy = {
  match: 'https://api.example.com',
  retry_safe_methods: ['GET', 'HEAD'],
  callers_may_assert_idempotent: false,
  redirects: 'none',
  timeouts_ms: { connect: 5000, response_headers: 30000, body: 30000 },
  limits: { request_body_bytes: 16, response_body_bytes: 1024, response_read_bytes: 4096, output_bytes: 1024 },
  response_headers: [],
  host_keys: [],
  idempotent_commands: ['^uptime$'],
};
const contractTarget: TargetPolicy = {
  ...target,
  idempotency: { header: 'Idempotency-Key', scope: 'payments.create', retention_s: 86400, margin_s: 3600, in_use_status: 409, mismatch_status: 422 },
};
const bearer: CredentialMeta = {
  id: 'payments-api',
  version: 3,
  type: 'http_bearer',
  scope: ['https://api.example.com'],
  approval: 'none',
  created_at: '2026-11-01T00:00:00Z',
};
const dispatch: DispatchPolicy = { connect_attempts: 3, budget: 5, auto_retry: false, lease_ms: 30000 };

function http(overrides: Partial<ActionCommand> = {}, spec: Partial<NonNullable<ActionCommand['http']>> = {}): ActionCommand {
  return {
    client_request_id: 'r',
    action: 'http.request',
    credential: 'payments-api',
    http: { method: 'POST', url: 'https://API.example.com/v1/charges?x=1#frag', ...spec },
    ...overrides,
  };
}

function ssh(command = 'uptime', extra: Partial<ActionCommand> = {}): ActionCommand {
  return { client_request_id: 'r', action: 'ssh.exec', credential: 'deploy', ssh: { host: 'Deploy.Example.com', port: 2222, command }, ...extra };
}

describe('forbiddenHeaders', () => {
  it('always forbids the framing and secret-bearing headers', () => {
    expect(forbiddenHeaders(null, null).sort()).toEqual(
      ['authorization', 'connection', 'content-length', 'cookie', 'host', 'proxy-authorization', 'transfer-encoding'].sort(),
    );
  });
  it("adds the target's idempotency header and the credential's injected header, lower case", () => {
    const custom: CredentialMeta = { ...bearer, type: 'http_header', header_name: 'X-Api-Key' };
    const names = forbiddenHeaders(contractTarget, custom);
    expect(names).toContain('idempotency-key');
    expect(names).toContain('x-api-key');
  });
});

describe('checkPreflight', () => {
  it('passes a command that fits', () => {
    expect(checkPreflight({ command: http(), target, credential: bearer })).toBeNull();
  });

  it('no target is TARGET_NOT_ALLOWED on http.url or ssh.host', () => {
    expect(checkPreflight({ command: http(), target: null, credential: bearer })).toMatchObject({ code: Code.TARGET_NOT_ALLOWED, field: 'http.url' });
    expect(checkPreflight({ command: ssh(), target: null, credential: bearer })).toMatchObject({ code: Code.TARGET_NOT_ALLOWED, field: 'ssh.host' });
  });

  it('a missing or revoked credential is UNKNOWN_CREDENTIAL without naming it', () => {
    const a = checkPreflight({ command: http(), target, credential: null });
    const b = checkPreflight({ command: http(), target, credential: { ...bearer, revoked: true } });
    for (const f of [a, b]) {
      expect(f).toMatchObject({ code: Code.UNKNOWN_CREDENTIAL, field: 'credential' });
      expect(f?.message).not.toContain('payments-api');
    }
  });

  it('a forbidden header is FORBIDDEN_HEADER on its lower-case path', () => {
    const f = checkPreflight({ command: http({}, { headers: { Authorization: 'Bearer x' } }), target, credential: bearer });
    expect(f).toMatchObject({ code: Code.FORBIDDEN_HEADER, field: 'http.headers.authorization' });
    expect(f?.message).not.toContain('Bearer x');
  });

  it("the contract's idempotency header is forbidden", () => {
    const f = checkPreflight({ command: http({}, { headers: { 'idempotency-key': 'k' } }), target: contractTarget, credential: bearer });
    expect(f).toMatchObject({ code: Code.FORBIDDEN_HEADER, field: 'http.headers.idempotency-key' });
  });

  it('a body over the limit is PAYLOAD_LIMIT; at the limit it passes', () => {
    expect(checkPreflight({ command: http({}, { body: { text: 'x'.repeat(17) } }), target, credential: bearer })).toMatchObject({
      code: Code.PAYLOAD_LIMIT,
      field: 'http.body',
    });
    expect(checkPreflight({ command: http({}, { body: { text: 'x'.repeat(16) } }), target, credential: bearer })).toBeNull();
  });

  it('stdin over the limit is PAYLOAD_LIMIT on ssh.stdin', () => {
    const command = ssh('uptime');
    command.ssh!.stdin = { base64: 'AAAAAAAAAAAAAAAAAAAAAAAA' };
    expect(checkPreflight({ command, target, credential: bearer })).toMatchObject({ code: Code.PAYLOAD_LIMIT, field: 'ssh.stdin' });
  });

  it('an idempotency_key without a contract is IDEMPOTENCY_UNSUPPORTED', () => {
    expect(checkPreflight({ command: http({ idempotency_key: 'k' }), target, credential: bearer })).toMatchObject({
      code: Code.IDEMPOTENCY_UNSUPPORTED,
      field: 'idempotency_key',
    });
    expect(checkPreflight({ command: http({ idempotency_key: 'k' }), target: contractTarget, credential: bearer })).toBeNull();
  });

  it('checks in contract order: target before credential before header before size before key', () => {
    const all = http({ idempotency_key: 'k' }, { headers: { cookie: 'c' }, body: { text: 'x'.repeat(100) } });
    expect(checkPreflight({ command: all, target: null, credential: null })?.code).toBe(Code.TARGET_NOT_ALLOWED);
    expect(checkPreflight({ command: all, target, credential: null })?.code).toBe(Code.UNKNOWN_CREDENTIAL);
    expect(checkPreflight({ command: all, target, credential: bearer })?.code).toBe(Code.FORBIDDEN_HEADER);
    const noHeader = http({ idempotency_key: 'k' }, { body: { text: 'x'.repeat(100) } });
    expect(checkPreflight({ command: noHeader, target, credential: bearer })?.code).toBe(Code.PAYLOAD_LIMIT);
  });
});

describe('normalizeTarget', () => {
  it('makes the port explicit, lowers the host and drops the fragment', () => {
    expect(normalizeTarget(http())).toEqual({
      kind: 'http',
      origin: 'https://api.example.com:443',
      target: 'https://api.example.com:443/v1/charges?x=1',
    });
  });
  it('keeps a non-default port and adds a root path', () => {
    expect(normalizeTarget(http({}, { url: 'http://127.0.0.1:8080' }))).toMatchObject({ origin: 'http://127.0.0.1:8080', target: 'http://127.0.0.1:8080/' });
  });
  it('writes SSH targets as ssh://host:port', () => {
    expect(normalizeTarget(ssh())).toEqual({ kind: 'ssh', host: 'deploy.example.com', port: 2222, target: 'ssh://deploy.example.com:2222' });
  });
  it('brackets IPv6 SSH hosts and defaults the port', () => {
    const command: ActionCommand = { client_request_id: 'r', action: 'ssh.exec', credential: 'd', ssh: { host: '::1', command: 'x' } };
    expect(normalizeTarget(command)).toEqual({ kind: 'ssh', host: '[::1]', port: 22, target: 'ssh://[::1]:22' });
  });
});

describe('knownIdempotent', () => {
  it('a retry-safe method is known idempotent; another is not', () => {
    expect(knownIdempotent(http({}, { method: 'GET' }), target)).toEqual({ known: true, assertion: null });
    expect(knownIdempotent(http(), target)).toEqual({ known: false, assertion: null });
  });
  it('an SSH command matching idempotent_commands is known idempotent', () => {
    expect(knownIdempotent(ssh('uptime'), target).known).toBe(true);
    expect(knownIdempotent(ssh('uptime; rm -rf /'), target).known).toBe(false);
  });
  it("the caller's assertion is ignored unless the target allows it", () => {
    expect(knownIdempotent(http({ idempotent: true }), target)).toEqual({ known: false, assertion: 'ignored' });
    expect(knownIdempotent(http({ idempotent: true }), { ...target, callers_may_assert_idempotent: true })).toEqual({
      known: true,
      assertion: 'honoured',
    });
  });
  it('an invalid pattern matches nothing instead of throwing', () => {
    expect(knownIdempotent(ssh('uptime'), { ...target, idempotent_commands: ['('] }).known).toBe(false);
  });
});

describe('injectionSupported', () => {
  it('pairs http_* with http.request and ssh_* with ssh.exec', () => {
    expect(injectionSupported('http.request', 'http_bearer')).toBe(true);
    expect(injectionSupported('http.request', 'ssh_key')).toBe(false);
    expect(injectionSupported('ssh.exec', 'ssh_password')).toBe(true);
    expect(injectionSupported('ssh.exec', 'http_query')).toBe(false);
  });
});

describe('buildBinding', () => {
  it('binds target, credential, contract expiry and dispatch settings', () => {
    const binding = buildBinding({
      command: http({ idempotency_key: 'charge-1' }),
      target: contractTarget,
      policyDigest: 'sha256:p',
      credential: bearer,
      bodyDigest: 'sha256:b',
      dispatch,
      acceptedAt: '2026-11-29T18:00:00.000Z',
    });
    expect(binding).toEqual({
      action: 'http.request',
      target: 'https://api.example.com:443/v1/charges?x=1',
      method: 'POST',
      policy_match: 'https://api.example.com',
      policy_digest: 'sha256:p',
      credential: { id: 'payments-api', version: 3, type: 'http_bearer', injection: 'http_bearer' },
      body_digest: 'sha256:b',
      idempotency: {
        key: 'charge-1',
        scope: 'payments.create',
        header: 'Idempotency-Key',
        expires_at: '2026-11-30T17:00:00.000Z',
        remote_contract: 'configured',
      },
      known_idempotent: false,
      idempotent_assertion: null,
      budget: 5,
      connect_attempts: 3,
      auto_retry: false,
      lease_ms: 30000,
    });
  });
  it('has no idempotency without a key, and no method for SSH', () => {
    const binding = buildBinding({ command: ssh(), target: contractTarget, policyDigest: 'p', credential: { ...bearer, type: 'ssh_key' }, bodyDigest: null, dispatch, acceptedAt: '2026-11-29T18:00:00Z' });
    expect(binding.idempotency).toBeNull();
    expect(binding.method).toBeNull();
    expect(binding.known_idempotent).toBe(true);
  });
  it('refuses an acceptedAt that is not a time', () => {
    expect(() =>
      buildBinding({ command: http({ idempotency_key: 'k' }), target: contractTarget, policyDigest: 'p', credential: bearer, bodyDigest: null, dispatch, acceptedAt: 'yesterday' }),
    ).toThrowError(/acceptedAt/);
  });
});
