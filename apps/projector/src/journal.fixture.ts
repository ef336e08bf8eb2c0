import type { JetStreamClient } from '@nats-io/jetstream';
import { headers } from '@nats-io/transport-node';
import {
  Action,
  Code,
  CredentialType,
  HttpMethod,
  EventType,
  EvidenceSource,
  Outcome,
  Retry,
  Stage,
  subjects,
  type JournalEvent,
} from '@postern/contract';
import { EVENT_TYPE_HEADER } from '@postern/journal';

/*
 * Journals written by hand, for the projector's tests: the events a broker
 * would append for a few typical invocations, published straight to the
 * stream so the projector is tested against real JetStream messages.
 */

const START_MS = Date.parse('2026-11-29T18:00:00.000Z');

/** A valid invocation id (`act_` + 26 Crockford base32 characters) from a number. */
export function fixtureId(i: number): string {
  return `act_${String(i).padStart(26, '0')}`;
}

export function fixtureBinding(): Record<string, unknown> {
  return {
    action: Action.http_request,
    target: 'http://127.0.0.1:9/v1/charges',
    method: HttpMethod.POST,
    policy_match: 'http://127.0.0.1:*',
    policy_digest: 'sha256:policy',
    credential: { id: 'payments-api', version: 1, type: CredentialType.http_bearer, injection: CredentialType.http_bearer },
    body_digest: null,
    idempotency: null,
    known_idempotent: false,
    idempotent_assertion: null,
    budget: 5,
    connect_attempts: 3,
    auto_retry: false,
    lease_ms: 30000,
  };
}

/** Builds the events of one invocation in order; `n` and `at` advance by themselves. */
export class InvocationScript {
  readonly events: JournalEvent[] = [];

  constructor(
    readonly id: string,
    private readonly stepMs = 250,
  ) {}

  add(
    type: EventType,
    data: Record<string, unknown> = {},
    env: { attempt?: number; generation?: number; source?: EvidenceSource; service?: string; n?: number } = {},
  ): JournalEvent {
    const n = env.n ?? this.events.length + 1;
    const event: JournalEvent = {
      type,
      invocation_id: this.id,
      n,
      attempt: env.attempt ?? 0,
      generation: env.generation ?? 0,
      at: new Date(START_MS + this.events.length * this.stepMs).toISOString(),
      source: env.source ?? EvidenceSource.transport_observed,
      service: env.service ?? 'test',
      data,
    };
    this.events.push(event);
    return event;
  }

  accepted(clientRequestId = `req-${this.id.slice(-6)}`): this {
    this.add(EventType.ACTION_ACCEPTED, {
      client_request_id: clientRequestId,
      caller: 'agent-7',
      action: Action.http_request,
      command_digest: 'sha256:cmd',
      command: null,
      deadline_at: null,
    });
    return this;
  }

  validated(): this {
    this.add(EventType.PREFLIGHT_VALIDATED, { binding: fixtureBinding(), request_fingerprint: 'sha256:fp' });
    return this;
  }

  rejected(code: Code = Code.MISSING_FIELD, field = 'http.url'): this {
    this.add(EventType.PREFLIGHT_REJECTED, { code, field, message: 'A required field is missing.' });
    return this;
  }

  authorized(): this {
    this.add(EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'payments-api', version: 1, injection: CredentialType.http_bearer } });
    return this;
  }

  connectionFailed(connectTry: number, code: Code = Code.CONNECT_REFUSED, attempt = 1): this {
    this.add(
      EventType.CONNECTION_FAILED,
      { connect_try: connectTry, stage: Stage.tcp_connect, code, retry_rule: Retry.backoff, diagnostic: 'ECONNREFUSED' },
      { attempt, generation: 1 },
    );
    return this;
  }

  dispatched(attempt = 1): this {
    this.add(EventType.DISPATCH_STARTED, { connect_try: 1, connection: { id: 'c-1', reused: false } }, { attempt, generation: attempt });
    this.add(EventType.REQUEST_SENT, { request_headers_sent: true, request_complete: true }, { attempt, generation: attempt });
    return this;
  }

  completed(status = 201, attempt = 1): this {
    this.add(EventType.REMOTE_RESPONSE_STARTED, { response_status: status, framing: 'content-length' }, { attempt, generation: attempt });
    const ok = status < 400;
    this.add(
      EventType.REMOTE_RESPONSE_COMPLETE,
      {
        outcome: ok ? Outcome.committed : Outcome.rejected,
        code: ok ? null : Code.REMOTE_REJECTED,
        retry_rule: ok ? Retry.never : Retry.after_correction,
        stage: Stage.response_body,
        response_status: status,
        response_digest: 'sha256:resp',
        result_object: `${this.id}/${attempt}`,
        framing: 'content-length',
      },
      { attempt, generation: attempt, source: EvidenceSource.remote_response },
    );
    return this;
  }
}

const encoder = new TextEncoder();

/** Appends events to the journal stream of `prefix`, in order; returns their stream sequences. */
export async function appendEvents(js: JetStreamClient, prefix: string, events: readonly JournalEvent[]): Promise<number[]> {
  const seqs: number[] = [];
  for (const event of events) {
    const h = headers();
    h.set(EVENT_TYPE_HEADER, event.type);
    const ack = await js.publish(subjects(prefix).evt(event.invocation_id), encoder.encode(JSON.stringify(event)), {
      headers: h,
    });
    seqs.push(ack.seq);
  }
  return seqs;
}

/** Appends a message that is not what it should be (not JSON, a wrong envelope) to an invocation's subject. */
export async function appendRaw(js: JetStreamClient, prefix: string, invocationId: string, text: string): Promise<number> {
  const ack = await js.publish(subjects(prefix).evt(invocationId), encoder.encode(text));
  return ack.seq;
}
