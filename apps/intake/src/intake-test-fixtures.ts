import { Action, CredentialType, HttpMethod, type CredentialMeta } from '@postern/contract';

/**
 * A policy with one target under an idempotency contract and a small body
 * limit, one loopback HTTP target without a contract, and one SSH target.
 */
export const TEST_POLICY_YAML = `
targets:
  - match: "https://api.example.com"
    idempotency:
      header: Idempotency-Key
      scope: payments.create
      retention_s: 86400
      margin_s: 3600
    limits: {request_body_bytes: 64}
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET]
  - match: "ssh://127.0.0.1:*"
    host_keys: ["SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"]
    idempotent_commands: ["^uptime$"]
dispatch:
  connect_attempts: 3
  budget: 5
  auto_retry: false
  lease_ms: 30000
`;

export const BEARER: CredentialMeta = {
  id: 'payments-api',
  version: 3,
  type: CredentialType.http_bearer,
  scope: ['https://api.example.com', 'http://127.0.0.1:*'],
  approval: 'none',
  created_at: '2026-01-01T00:00:00.000Z',
};

export const HEADER_KEY: CredentialMeta = {
  id: 'search-key',
  version: 1,
  type: CredentialType.http_header,
  header_name: 'X-Api-Key',
  scope: ['http://127.0.0.1:*'],
  approval: 'none',
  created_at: '2026-01-01T00:00:00.000Z',
};

export const SSH_KEY: CredentialMeta = {
  id: 'deploy-key',
  version: 2,
  type: CredentialType.ssh_key,
  user: 'deploy',
  scope: ['ssh://deploy@127.0.0.1:*'],
  approval: 'none',
  created_at: '2026-01-01T00:00:00.000Z',
};

let counter = 0;

/** A fresh client_request_id per call, so tests never collide on the requests bucket. */
export function requestId(tag: string): string {
  counter += 1;
  return `req-${tag}-${Date.now()}-${counter}`;
}

export function httpCommand(overrides: Record<string, unknown> = {}, http: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_request_id: requestId('http'),
    caller: 'agent-7',
    action: Action.http_request,
    credential: BEARER.id,
    http: {
      method: HttpMethod.POST,
      url: 'https://api.example.com/v1/charges',
      headers: { 'content-type': 'application/json' },
      body: { json: { amount: 500 } },
      ...http,
    },
    ...overrides,
  };
}

export function sshCommand(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_request_id: requestId('ssh'),
    action: Action.ssh_exec,
    credential: SSH_KEY.id,
    ssh: { host: '127.0.0.1', port: 2222, command: 'uptime' },
    ...overrides,
  };
}
