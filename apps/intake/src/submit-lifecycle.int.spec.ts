import { randomBytes } from 'node:crypto';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import {
  canonicalJson,
  Code,
  EventType,
  EvidenceSource,
  newInvocationId,
  Outcome,
  Phase,
  Retry,
  ServiceName,
  Status,
  type JournalEvent,
} from '@postern/contract';
import { digestOf, encodeKvKey, getPayload } from '@postern/journal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intakeEvent } from './intake-event.js';
import { startIntake, type IntakeHarness } from './intake-test-harness.js';
import { BEARER, httpCommand, requestId, SSH_KEY, sshCommand, TEST_POLICY_YAML } from './intake-test-fixtures.js';

let nats: NatsServerHandle;
let intake: IntakeHarness;

beforeAll(async () => {
  nats = await startNatsServer();
  intake = await startIntake(nats.url, TEST_POLICY_YAML);
  await intake.putCredential(BEARER);
  await intake.putCredential(SSH_KEY);
});

afterAll(async () => {
  await intake?.close();
  await nats?.stop();
});

describe('given a valid command', () => {
  it('validates it: pending, not attempted, bound to the credential version', async () => {
    const command = httpCommand({ timeout_ms: 30_000 });
    const reply = await intake.submit(command);
    expect(reply).toMatchObject({
      client_request_id: command['client_request_id'],
      status: Status.pending,
      outcome: Outcome.not_attempted,
      cancelled: false,
      delivered: false,
      error: null,
    });
    expect(reply.evidence.credential).toEqual({ id: BEARER.id, version: BEARER.version, injection: BEARER.type });
    const events = await intake.events(reply.invocation_id);
    expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_VALIDATED]);
    const validated = events[1]!.data as { binding: unknown; request_fingerprint: string };
    expect(validated.request_fingerprint).toBe(digestOf(canonicalJson(validated.binding)));
    expect(reply.evidence.request_fingerprint).toBe(validated.request_fingerprint);
    expect(validated.binding).toMatchObject({
      action: 'http.request',
      target: 'https://api.example.com:443/v1/charges',
      method: 'POST',
      policy_match: 'https://api.example.com',
      credential: { id: BEARER.id, version: BEARER.version, type: BEARER.type },
      idempotency: null,
      budget: 5,
    });
    for (const e of events) {
      expect(e).toMatchObject({ source: EvidenceSource.transport_observed, service: ServiceName.intake, attempt: 0 });
    }
  });

  it('journals the command digest and the body by reference, and stores the body bytes', async () => {
    const command = httpCommand({ timeout_ms: 5_000 }, { body: { json: { memo: 'body-marker-qz' } } });
    const reply = await intake.submit(command);
    const [accepted, validated] = await intake.events(reply.invocation_id);
    const data = accepted!.data as Record<string, any>;
    const bodyBytes = new TextEncoder().encode('{"memo":"body-marker-qz"}');
    expect(data['command_digest']).toBe(digestOf(canonicalJson(command)));
    expect(data['command'].http.body).toEqual({ digest: digestOf(bodyBytes), bytes: bodyBytes.byteLength, encoding: 'json' });
    // The marker has letters outside hex and digits, so no digest or timestamp can contain it by chance.
    expect(JSON.stringify(data)).not.toContain('body-marker-qz');
    expect(Date.parse(data['deadline_at'])).toBe(Date.parse(accepted!.at) + 5_000);
    expect((validated!.data as any).binding.body_digest).toBe(digestOf(bodyBytes));
    const stored = await getPayload(intake.res, digestOf(bodyBytes));
    expect(stored === null ? null : new TextDecoder().decode(stored)).toBe('{"memo":"body-marker-qz"}');
  });

  it('validates an SSH command against its target', async () => {
    const reply = await intake.submit(sshCommand({ ssh: { host: '127.0.0.1', port: 2222, command: 'uptime', stdin: { text: 'hi' } } }));
    expect(reply.error).toBeNull();
    const [, validated] = await intake.events(reply.invocation_id);
    expect((validated!.data as any).binding).toMatchObject({ target: 'ssh://127.0.0.1:2222', method: null });
    expect(reply.evidence.credential).toEqual({ id: SSH_KEY.id, version: SSH_KEY.version, injection: SSH_KEY.type });
  });

  it('binds an SSH command as known idempotent only when idempotent_commands matches it', async () => {
    const safe = await intake.submit(sshCommand({ ssh: { host: '127.0.0.1', port: 2222, command: 'uptime' } }));
    const unsafe = await intake.submit(sshCommand({ ssh: { host: '127.0.0.1', port: 2222, command: 'uptime; reboot' } }));
    expect(safe.error).toBeNull();
    expect(unsafe.error).toBeNull();
    const [, a] = await intake.events(safe.invocation_id);
    const [, b] = await intake.events(unsafe.invocation_id);
    const bindingA = (a!.data as any).binding;
    expect(bindingA).toMatchObject({ action: 'ssh.exec', target: 'ssh://127.0.0.1:2222', known_idempotent: true, body_digest: null });
    expect(bindingA.credential).toEqual({ id: SSH_KEY.id, version: SSH_KEY.version, type: SSH_KEY.type, injection: SSH_KEY.type });
    expect((b!.data as any).binding).toMatchObject({ known_idempotent: false });
  });

  it('binds the idempotency key of a target under a contract', async () => {
    const key = `charge-${requestId('bind')}`;
    const reply = await intake.submit(httpCommand({ idempotency_key: key }));
    expect(reply.error).toBeNull();
    expect(reply.evidence.idempotency).toMatchObject({ key, scope: 'payments.create', remote_contract: 'configured' });
    const claim = await intake.res.kv.idempotency.get(encodeKvKey(`payments.create/${key}`));
    expect(claim?.json<{ invocation_id: string }>().invocation_id).toBe(reply.invocation_id);
  });
});

describe('given a client_request_id that was used before', () => {
  it('returns the same invocation for the same command and writes nothing', async () => {
    const command = httpCommand();
    const first = await intake.submit(command);
    const before = await intake.streamMessages();
    const again = await intake.submit({ ...command });
    expect(again.invocation_id).toBe(first.invocation_id);
    expect(again.journal).toEqual(first.journal);
    expect(await intake.streamMessages()).toBe(before);
  });

  it('treats a reordering of keys as the same command', async () => {
    const command = httpCommand();
    const first = await intake.submit(command);
    const reordered = Object.fromEntries(Object.entries(command).reverse());
    expect((await intake.submit(reordered)).invocation_id).toBe(first.invocation_id);
  });

  it('is IDEMPOTENCY_MISMATCH for another command and writes nothing', async () => {
    const command = httpCommand();
    await intake.submit(command);
    const before = await intake.streamMessages();
    const reply = await intake.submit({ ...command, caller: 'someone-else' });
    expect(reply).toEqual({
      error: {
        code: Code.IDEMPOTENCY_MISMATCH,
        phase: Phase.validation,
        outcome: Outcome.not_attempted,
        retry: Retry.after_correction,
        message: expect.any(String),
        field: 'client_request_id',
      },
    });
    expect(await intake.streamMessages()).toBe(before);
  });

  it('gives every one of many concurrent duplicates the same invocation with one pair of events', async () => {
    const command = httpCommand();
    const replies = await Promise.all(Array.from({ length: 8 }, () => intake.submit(command)));
    const ids = new Set(replies.map((r) => r.invocation_id));
    expect(ids.size).toBe(1);
    const events = await intake.events(replies[0].invocation_id);
    expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_VALIDATED]);
  });
});

describe('given an idempotency key already held in its scope', () => {
  it('returns the invocation that holds it for the same fingerprint, creating none', async () => {
    const key = `charge-${requestId('dup')}`;
    const first = await intake.submit(httpCommand({ idempotency_key: key }));
    expect(first.error).toBeNull();
    const before = await intake.streamMessages();
    const second = await intake.submit(httpCommand({ idempotency_key: key, caller: 'agent-8' }));
    expect(second.invocation_id).toBe(first.invocation_id);
    expect(await intake.streamMessages()).toBe(before);
  });
});

describe('given an intake that stopped half-way through a submission', () => {
  it('completes an invocation whose request key was written but no event', async () => {
    const command = httpCommand();
    const invocationId = newInvocationId(Date.now(), randomBytes(10));
    await intake.res.kv.requests.create(
      encodeKvKey(command['client_request_id'] as string),
      JSON.stringify({ invocation_id: invocationId, command_digest: digestOf(canonicalJson(command)) }),
    );
    const reply = await intake.submit(command);
    expect(reply.invocation_id).toBe(invocationId);
    expect(reply.status).toBe(Status.pending);
    const events = await intake.events(invocationId);
    expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_VALIDATED]);
  });

  it('completes an invocation that has ACTION_ACCEPTED but no verdict, keeping its acceptance time', async () => {
    const command = httpCommand();
    const invocationId = newInvocationId(Date.now(), randomBytes(10));
    await intake.res.kv.requests.create(
      encodeKvKey(command['client_request_id'] as string),
      JSON.stringify({ invocation_id: invocationId, command_digest: digestOf(canonicalJson(command)) }),
    );
    const acceptedAt = new Date(Date.now() - 60_000).toISOString();
    const accepted = intakeEvent(EventType.ACTION_ACCEPTED, invocationId, 1, acceptedAt, {
      client_request_id: command['client_request_id'],
      caller: 'agent-7',
      action: 'http.request',
      command_digest: digestOf(canonicalJson(command)),
      command: null,
      deadline_at: null,
    });
    expect((await intake.journal.append(accepted, 0)).status).toBe('appended');
    const reply = await intake.submit(command);
    expect(reply.invocation_id).toBe(invocationId);
    const events = await intake.events(invocationId);
    expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_VALIDATED]);
    expect(events[0]!.at).toBe(acceptedAt);
  });
});

describe('get', () => {
  it('returns the RecordView of a known invocation', async () => {
    const submitted = await intake.submit(httpCommand());
    const got = await intake.request(intake.subjects.actionsGet, { invocation_id: submitted.invocation_id });
    expect(got).toEqual(submitted);
  });

  it('is NOT_FOUND for an unknown id, with retry never', async () => {
    const unknown = newInvocationId(Date.now(), randomBytes(10));
    for (const id of [unknown, 'not-an-id', 'a.b.c']) {
      const reply = await intake.request(intake.subjects.actionsGet, { invocation_id: id });
      expect(reply.error).toMatchObject({ code: Code.NOT_FOUND, retry: Retry.never });
    }
  });
});

describe('cancel', () => {
  async function dispatcherAppends(invocationId: string, drafts: Omit<JournalEvent, 'n' | 'invocation_id'>[]): Promise<void> {
    for (const draft of drafts) {
      const result = await intake.journal.appendNext(invocationId, () => draft);
      expect(result.status).toBe('appended');
    }
  }

  const at = () => new Date().toISOString();
  const authorized = {
    type: EventType.CREDENTIAL_AUTHORIZED,
    attempt: 0,
    generation: 0,
    at: at(),
    source: EvidenceSource.transport_observed,
    service: ServiceName.credential,
    data: { credential: { id: BEARER.id, version: BEARER.version, injection: BEARER.type } },
  };

  it('stops a validated action before dispatch: CALLER_CANCELLED, not attempted, retry never', async () => {
    const submitted = await intake.submit(httpCommand());
    const reply = await intake.request(intake.subjects.actionsCancel, { invocation_id: submitted.invocation_id });
    expect(reply).toMatchObject({
      invocation_id: submitted.invocation_id,
      status: Status.resolved,
      outcome: Outcome.not_attempted,
      cancelled: true,
      error: { code: Code.CALLER_CANCELLED, phase: Phase.credential_injection, outcome: Outcome.not_attempted, retry: Retry.never },
    });
    const events = await intake.events(submitted.invocation_id);
    expect(events.map((e) => e.type)).toEqual([
      EventType.ACTION_ACCEPTED,
      EventType.PREFLIGHT_VALIDATED,
      EventType.CALLER_CANCELLED,
    ]);
    expect(events[2]!.data).toEqual({ phase: Phase.credential_injection, dispatched: false });
  });

  it('leaves a cancelled action unchanged when cancelled again', async () => {
    const submitted = await intake.submit(httpCommand());
    const first = await intake.request(intake.subjects.actionsCancel, { invocation_id: submitted.invocation_id });
    const before = await intake.streamMessages();
    const second = await intake.request(intake.subjects.actionsCancel, { invocation_id: submitted.invocation_id });
    expect(second).toEqual(first);
    expect(await intake.streamMessages()).toBe(before);
  });

  it('leaves a resolved (rejected) action unchanged', async () => {
    const rejected = await intake.submit(httpCommand({}, { method: 'TRACE' }));
    expect(rejected.status).toBe(Status.resolved);
    const before = await intake.streamMessages();
    const reply = await intake.request(intake.subjects.actionsCancel, { invocation_id: rejected.invocation_id });
    expect(reply).toEqual(rejected);
    expect(await intake.streamMessages()).toBe(before);
  });

  it('is NOT_FOUND for an unknown invocation and writes nothing', async () => {
    const before = await intake.streamMessages();
    const reply = await intake.request(intake.subjects.actionsCancel, {
      invocation_id: newInvocationId(Date.now(), randomBytes(10)),
    });
    expect(reply.error).toMatchObject({ code: Code.NOT_FOUND, retry: Retry.never });
    expect(await intake.streamMessages()).toBe(before);
  });

  it('stops an authorized but undispatched action in connection_setup', async () => {
    const submitted = await intake.submit(httpCommand());
    await dispatcherAppends(submitted.invocation_id, [authorized]);
    const reply = await intake.request(intake.subjects.actionsCancel, { invocation_id: submitted.invocation_id });
    expect(reply.error).toMatchObject({ code: Code.CALLER_CANCELLED, phase: Phase.connection_setup, retry: Retry.never });
    expect(reply.outcome).toBe(Outcome.not_attempted);
  });

  it('after dispatch records the cancel in remote_execution and leaves the outcome unknown', async () => {
    const submitted = await intake.submit(httpCommand());
    await dispatcherAppends(submitted.invocation_id, [
      authorized,
      { ...authorized, type: EventType.LEASE_ACQUIRED, attempt: 1, generation: 1, service: ServiceName.dispatcher, data: { holder: 'd-1', expires_at: at() } },
      {
        ...authorized,
        type: EventType.DISPATCH_STARTED,
        attempt: 1,
        generation: 1,
        service: ServiceName.dispatcher,
        data: { connect_try: 1, connection: { id: 'c-1', reused: false } },
      },
    ]);
    const reply = await intake.request(intake.subjects.actionsCancel, { invocation_id: submitted.invocation_id });
    expect(reply).toMatchObject({ cancelled: true, outcome: Outcome.unknown });
    expect(reply.error).toMatchObject({ code: Code.CALLER_CANCELLED, phase: Phase.remote_execution });
    const events = await intake.events(submitted.invocation_id);
    const cancel = events[events.length - 1]!;
    expect(cancel).toMatchObject({
      type: EventType.CALLER_CANCELLED,
      attempt: 1,
      generation: 1,
      data: { phase: Phase.remote_execution, dispatched: true },
    });
  });
});
