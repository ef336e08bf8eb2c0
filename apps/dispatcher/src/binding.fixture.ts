import {
  buildBinding,
  canonicalJson,
  CredentialType,
  EventType,
  EvidenceSource,
  type ActionCommand,
  type Binding,
  type Policy,
  type StoredEvent,
} from '@postern/contract';
import { digestOf } from '@postern/journal';
import { matchTarget, parsePolicy, policyEntryDigest } from '@postern/policy';

export const FIXTURE_POLICY_YAML = `targets:
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET]
  - match: "https://api.example.com"
    idempotency: {header: Idempotency-Key, scope: payments.create, retention_s: 86400}
dispatch:
  connect_attempts: 3
  budget: 2
  lease_ms: 3000
`;

export function fixturePolicy(yaml: string = FIXTURE_POLICY_YAML): Policy {
  const parsed = parsePolicy(yaml);
  if (!parsed.ok) throw new Error('bad fixture policy');
  return parsed.policy;
}

export function fixtureCommand(url = 'http://127.0.0.1:8080/v1/things?x=1'): ActionCommand {
  return {
    client_request_id: 'req-1',
    caller: 'agent',
    action: 'http.request',
    credential: 'api',
    http: { method: 'GET', url, headers: { accept: 'application/json' } },
  };
}

export function fixtureBinding(command: ActionCommand = fixtureCommand(), policy: Policy = fixturePolicy()): Binding {
  const url = new URL(command.http!.url);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  const target = matchTarget(policy, { kind: 'http', scheme: url.protocol === 'https:' ? 'https' : 'http', host: url.hostname, port });
  if (target === null) throw new Error('fixture target not allowed');
  return buildBinding({
    command,
    target,
    policyDigest: policyEntryDigest(target, policy.dispatch),
    credential: { id: 'api', version: 2, type: CredentialType.http_bearer, scope: ['http://127.0.0.1:*'], approval: 'none', created_at: '2026-01-01T00:00:00.000Z' },
    bodyDigest: null,
    dispatch: policy.dispatch,
    acceptedAt: '2026-11-29T18:00:00.000Z',
  });
}

export function fingerprintOf(binding: Binding): string {
  return digestOf(canonicalJson(binding));
}

/** A journal built event by event, with `n` and `seq` filled in. */
export class HistoryBuilder {
  readonly events: StoredEvent[] = [];
  constructor(readonly invocationId = 'act_fixture1') {}

  add(type: EventType, data: Record<string, unknown> = {}, attempt = 0, generation = 0): this {
    const n = this.events.length + 1;
    this.events.push({
      type,
      invocation_id: this.invocationId,
      n,
      attempt,
      generation,
      at: '2026-11-29T18:00:00.000Z',
      source: EvidenceSource.transport_observed,
      service: 'test',
      data,
      seq: n * 10,
    });
    return this;
  }

  authorized(binding: Binding = fixtureBinding(), deadline: string | null = null): this {
    return this.add(EventType.ACTION_ACCEPTED, { client_request_id: 'req-1', command: fixtureCommand(), deadline_at: deadline })
      .add(EventType.PREFLIGHT_VALIDATED, { binding, request_fingerprint: fingerprintOf(binding) })
      .add(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'api', version: 2, injection: 'http_bearer' } });
  }

  dispatched(attempt = 1, generation = 1): this {
    return this.add(EventType.LEASE_ACQUIRED, { holder: 'd-1', expires_at: '2026-11-29T18:00:30.000Z' }, attempt, generation).add(
      EventType.DISPATCH_STARTED,
      { connect_try: 1, connection: { id: 'c-1', reused: false } },
      attempt,
      generation,
    );
  }
}
