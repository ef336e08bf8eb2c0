import { Action, buildBinding, CredentialType, parseActionCommand, type Binding, type CredentialMeta } from '@postern/contract';
import { parsePolicy } from '@postern/policy';

/** Test-only: a policy and commands that bind against it, as the intake would. */
export const TEST_POLICY_YAML = `
targets:
  - match: "https://api.example.com"
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET]
  - match: "ssh://127.0.0.1:*"
    host_keys: ["SHA256:uNiVztksCsDhcc0u9e8BujQXVUpKZIDTMczCvj3tD2s"]
`;

const policy = (() => {
  const parsed = parsePolicy(TEST_POLICY_YAML);
  if (!parsed.ok) throw new Error('test policy does not parse');
  return parsed.policy;
})();

export function meta(overrides: Partial<CredentialMeta> = {}): CredentialMeta {
  return {
    id: 'payments-api',
    version: 1,
    type: CredentialType.http_bearer,
    scope: ['https://api.example.com', 'http://127.0.0.1:*'],
    approval: 'none',
    created_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** A binding for a GET (or an SSH exec) to `url` with `credential`, built by the contract's own buildBinding. */
export function bindingFor(credential: CredentialMeta, url = 'https://api.example.com/v1/things?x=1'): Binding {
  const raw = url.startsWith('ssh://')
    ? (() => {
        const u = new URL(url.replace('ssh://', 'http://'));
        return { client_request_id: 'req-1', action: Action.ssh_exec, credential: credential.id, ssh: { host: u.hostname, port: Number(u.port || 22), command: 'uptime' } };
      })()
    : { client_request_id: 'req-1', action: Action.http_request, credential: credential.id, http: { method: 'GET', url } };
  const parsed = parseActionCommand(raw);
  if (!parsed.ok) throw new Error(`test command does not parse: ${parsed.failure.code}`);
  const target = url.startsWith('ssh://') ? policy.targets[2]! : url.startsWith('https://') ? policy.targets[0]! : policy.targets[1]!;
  return buildBinding({
    command: parsed.command,
    target,
    policyDigest: 'sha256:00',
    credential,
    bodyDigest: null,
    dispatch: policy.dispatch,
    acceptedAt: '2026-01-01T00:00:00.000Z',
  });
}
