import {
  Code,
  EventType,
  EvidenceSource,
  newInvocationId,
  Outcome,
  Phase,
  Retry,
  ServiceName,
  Stage,
  type StoredEvent,
} from '@postern/contract';
import { putHttpResult, type EventDraft, type Journal, type JournalResources, type StoredResult } from '@postern/journal';

export const TEST_POLICY_YAML = `
targets:
  - match: "http://127.0.0.1:*"
    retry_safe_methods: [GET]
dispatch:
  connect_attempts: 3
  budget: 5
  auto_retry: false
  lease_ms: 30000
results:
  retention_s: 3600
`;

export const RETENTION_S = 3600;

const binding = {
  action: 'http.request',
  target: 'http://127.0.0.1:8080/v1/things',
  method: 'GET',
  policy_match: 'http://127.0.0.1:*',
  policy_digest: 'sha256:policy',
  credential: { id: 'local-api', version: 1, type: 'http_bearer', injection: 'http_bearer' },
  body_digest: null,
  idempotency: null,
  known_idempotent: true,
  idempotent_assertion: null,
  budget: 5,
  connect_attempts: 3,
  auto_retry: false,
  lease_ms: 30000,
};

function draft(
  type: EventType,
  data: Record<string, unknown>,
  env: { attempt?: number; generation?: number; service?: string; source?: EvidenceSource } = {},
): EventDraft {
  return {
    type,
    attempt: env.attempt ?? 0,
    generation: env.generation ?? 0,
    at: new Date().toISOString(),
    source: env.source ?? EvidenceSource.transport_observed,
    service: env.service ?? ServiceName.dispatcher,
    data,
  };
}

export async function append(journal: Journal, id: string, d: EventDraft): Promise<StoredEvent> {
  const r = await journal.appendNext(id, () => d);
  if (r.status !== 'appended') throw new Error(`append of ${d.type} ${r.status}`);
  return r.event;
}

/** An invocation up to REMOTE_RESPONSE_STARTED of attempt 1, as intake, credential and dispatcher would leave it. */
export async function seedDispatched(journal: Journal, opts: { cancelled?: boolean } = {}): Promise<string> {
  const id = newInvocationId(Date.now(), crypto.getRandomValues(new Uint8Array(10)));
  const intake = { service: ServiceName.intake };
  await append(journal, id, draft(EventType.ACTION_ACCEPTED, { client_request_id: `req-${id}`, caller: 'agent', action: 'http.request', command_digest: 'sha256:c', command: null, deadline_at: null }, intake));
  await append(journal, id, draft(EventType.PREFLIGHT_VALIDATED, { binding, request_fingerprint: 'sha256:fp' }, intake));
  await append(journal, id, draft(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'local-api', version: 1, injection: 'http_bearer' } }, { service: ServiceName.credential }));
  const lease = { attempt: 1, generation: 1 };
  await append(journal, id, draft(EventType.LEASE_ACQUIRED, { holder: 'test', expires_at: new Date().toISOString() }, lease));
  await append(journal, id, draft(EventType.DISPATCH_STARTED, { connect_try: 1, connection: { id: 'c-1', reused: false } }, lease));
  await append(journal, id, draft(EventType.REQUEST_SENT, { request_headers_sent: true, request_complete: true }, lease));
  if (opts.cancelled) {
    await append(journal, id, draft(EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }, { ...lease, service: ServiceName.intake }));
  }
  await append(journal, id, draft(EventType.REMOTE_RESPONSE_STARTED, { response_status: 200, framing: 'content-length' }, { ...lease, source: EvidenceSource.remote_response }));
  return id;
}

export interface CompleteOptions {
  status?: number;
  body?: Uint8Array;
  headers?: Record<string, string>;
  complete?: boolean;
  /** Runs between storing and appending: how a test breaks the store. */
  tamper?: (stored: StoredResult) => Promise<void>;
  /** Replaces the digest the event carries. */
  digest?: string;
  /** Leaves the result unstored (the event names an object that was never written). */
  skipStore?: boolean;
}

/** Stores a result as the dispatcher would, then appends its REMOTE_RESPONSE_COMPLETE. */
export async function completeResponse(
  res: JournalResources,
  journal: Journal,
  id: string,
  opts: CompleteOptions = {},
): Promise<{ event: StoredEvent; stored: StoredResult }> {
  const status = opts.status ?? 200;
  const complete = opts.complete ?? true;
  const body = opts.body ?? new TextEncoder().encode('{"ok":true}');
  const input = { invocation_id: id, attempt: 1, status, headers: opts.headers ?? { 'content-type': 'application/json' }, complete, body };
  const stored: StoredResult = opts.skipStore
    ? { result_object: `${id}.1`, result_digest: 'sha256:00', body_digest: null, body_bytes: 0 }
    : await putHttpResult(res, input);
  await opts.tamper?.(stored);
  const committed = status < 400;
  const data: Record<string, unknown> = {
    outcome: committed ? Outcome.committed : Outcome.rejected,
    code: committed ? (complete ? null : Code.RESPONSE_TRUNCATED) : Code.REMOTE_REJECTED,
    retry_rule: committed ? Retry.never : Retry.after_correction,
    stage: Stage.response_body,
    phase: Phase.remote_execution,
    response_status: status,
    response_digest: opts.digest ?? stored.result_digest,
    result_object: stored.result_object,
    framing: 'content-length',
  };
  if (!complete) data['complete'] = false;
  const event = await append(journal, id, draft(EventType.REMOTE_RESPONSE_COMPLETE, data, { attempt: 1, generation: 1, source: EvidenceSource.remote_response }));
  return { event, stored };
}
