import type { Msg } from '@nats-io/transport-node';
import {
  Action,
  EventType,
  EvidenceSource,
  HttpMethod,
  Phase,
  ServiceName,
  type ActionCommand,
  type Binding,
  type StoredEvent,
} from '@postern/contract';
import {
  isMalformedRequest,
  MalformedRequest,
  PlainJsonDeserializer,
  PlainJsonSerializer,
  readServiceConfig,
} from '@postern/service';
import { describe, expect, it } from 'vitest';
import { acceptedCommand, REDACTED } from './accepted-command.js';
import { cancelDraft, phaseReached } from './cancel-action.js';
import { intakeEvent } from './intake-event.js';
import { readInvocationRequest } from './invocation-request.js';
import { payloadBytes } from './payload-bytes.js';
import { idempotencyFingerprint, targetAddress } from './preflight-plan.js';

const text = new TextEncoder();

function msg(data: string | Uint8Array, reply?: string): Msg {
  return { subject: 'p.v1.actions.submit', data: typeof data === 'string' ? text.encode(data) : data, reply } as unknown as Msg;
}

describe('plain JSON deserializer', () => {
  const d = new PlainJsonDeserializer();

  it('passes the parsed body on as data, keyed by the reply subject', () => {
    expect(d.deserialize(msg('{"a":1}', '_INBOX.x'), { channel: 'p.v1.actions.submit' })).toEqual({
      pattern: 'p.v1.actions.submit',
      data: { a: 1 },
      id: '_INBOX.x',
    });
  });

  it('turns bytes that are not JSON into a marker instead of throwing', () => {
    const packet = d.deserialize(msg('{"a":', '_INBOX.x'));
    expect(isMalformedRequest(packet.data)).toBe(true);
  });

  it('has no id without a reply subject, so Nest treats it as an event', () => {
    expect(d.deserialize(msg('{}'))).not.toHaveProperty('id');
  });

  it('is not fooled by JSON that looks like the marker', () => {
    expect(isMalformedRequest(d.deserialize(msg('{"reason":"not JSON"}', 'r')).data)).toBe(false);
    expect(isMalformedRequest(new MalformedRequest('x'))).toBe(true);
  });
});

describe('plain JSON serializer', () => {
  const s = new PlainJsonSerializer('intake');

  it('writes the bare response, no envelope', () => {
    const out = s.serialize({ id: 'r', response: { invocation_id: 'act_1' }, isDisposed: true });
    expect(new TextDecoder().decode(out.data)).toBe('{"invocation_id":"act_1"}');
    expect(out.headers).toBeUndefined();
  });

  it('answers a failed handler with service-error headers and no invented code', () => {
    const out = s.serialize({ id: 'r', err: { message: 'boom' } });
    expect(out.data.byteLength).toBe(0);
    expect(out.headers?.get('Nats-Service-Error-Code')).toBe('503');
  });
});

describe('accepted command', () => {
  const command: ActionCommand = {
    client_request_id: 'r-1',
    action: Action.http_request,
    credential: 'c',
    http: {
      method: HttpMethod.POST,
      url: 'https://h/x',
      headers: { Authorization: 'Bearer s', COOKIE: 'a=b', 'X-Key': 'k', Accept: 'text/plain' },
      body: { text: 'hello' },
    },
  };

  it('redacts secret-bearing header values and the named extra ones, keeping names', () => {
    const out = acceptedCommand(command, { digest: 'sha256:ab', bytes: 5, encoding: 'text' }, ['x-key']) as any;
    expect(out.http.headers).toEqual({ Authorization: REDACTED, COOKIE: REDACTED, 'X-Key': REDACTED, Accept: 'text/plain' });
    expect(out.http.body).toEqual({ digest: 'sha256:ab', bytes: 5, encoding: 'text' });
    expect(command.http?.headers?.['Authorization']).toBe('Bearer s');
  });

  it('decodes each body encoding to the bytes that will be sent', () => {
    const decode = (body: unknown) =>
      new TextDecoder().decode(payloadBytes({ ...command, http: { ...command.http!, body: body as never } })!.bytes);
    expect(decode({ text: 'hé' })).toBe('hé');
    expect(decode({ base64: Buffer.from('raw').toString('base64') })).toBe('raw');
    expect(decode({ json: { b: 1, a: [2] } })).toBe('{"b":1,"a":[2]}');
    expect(payloadBytes({ ...command, http: { method: HttpMethod.GET, url: 'https://h/' } })).toBeNull();
  });
});

describe('preflight helpers', () => {
  it('splits a normalised origin into what the policy matcher needs', () => {
    expect(targetAddress({ kind: 'http', origin: 'https://api.example.com:443', target: 'x' })).toEqual({
      kind: 'http',
      scheme: 'https',
      host: 'api.example.com',
      port: 443,
    });
    expect(targetAddress({ kind: 'http', origin: 'http://[::1]:8080', target: 'x' })).toMatchObject({ host: '[::1]', port: 8080 });
    expect(targetAddress({ kind: 'ssh', host: '10.0.0.5', port: 22, target: 'x' })).toEqual({ kind: 'ssh', host: '10.0.0.5', port: 22 });
  });

  it('compares idempotency claims without the per-submission expiry', () => {
    const binding = {
      action: Action.http_request,
      idempotency: { key: 'k', scope: 's', header: 'Idempotency-Key', expires_at: '2026-01-01T00:00:00.000Z', remote_contract: 'configured' },
    } as unknown as Binding;
    const later = { ...binding, idempotency: { ...binding.idempotency!, expires_at: '2026-01-02T00:00:00.000Z' } };
    const otherKey = { ...binding, idempotency: { ...binding.idempotency!, key: 'k2' } };
    expect(idempotencyFingerprint(later)).toBe(idempotencyFingerprint(binding));
    expect(idempotencyFingerprint(otherKey)).not.toBe(idempotencyFingerprint(binding));
  });
});

describe('cancel decision', () => {
  const id = 'act_01JD0000000000000000000000';
  let seq = 0;
  const stored = (type: EventType, data: Record<string, unknown> = {}, attempt = 0, generation = 0): StoredEvent => ({
    ...intakeEvent(type, id, seq + 1, new Date(0).toISOString(), data),
    attempt,
    generation,
    service: ServiceName.intake,
    source: EvidenceSource.transport_observed,
    seq: ++seq,
  });

  it('names the phase reached before dispatch', () => {
    expect(phaseReached([stored(EventType.ACTION_ACCEPTED)])).toBe(Phase.validation);
    expect(phaseReached([stored(EventType.ACTION_ACCEPTED), stored(EventType.PREFLIGHT_VALIDATED)])).toBe(Phase.credential_injection);
    expect(phaseReached([stored(EventType.PREFLIGHT_VALIDATED), stored(EventType.CREDENTIAL_AUTHORIZED)])).toBe(Phase.connection_setup);
  });

  it('does nothing for an unknown or already cancelled invocation', () => {
    expect(cancelDraft([], 0)).toBeNull();
    const accepted = stored(EventType.ACTION_ACCEPTED, { client_request_id: 'r' });
    expect(cancelDraft([accepted, stored(EventType.CALLER_CANCELLED, { phase: Phase.validation, dispatched: false })], 0)).toBeNull();
  });

  it('cancels an accepted action in validation', () => {
    const draft = cancelDraft([stored(EventType.ACTION_ACCEPTED, { client_request_id: 'r' })], 0);
    expect(draft).toMatchObject({ type: EventType.CALLER_CANCELLED, data: { phase: Phase.validation, dispatched: false } });
  });
});

describe('requests and configuration', () => {
  it('reads an invocation id or says why not', () => {
    expect(readInvocationRequest({ invocation_id: 'act_x' })).toEqual({ kind: 'id', invocationId: 'act_x' });
    expect(readInvocationRequest([])).toEqual({ kind: 'bad_request' });
    expect(readInvocationRequest(new MalformedRequest('x'))).toEqual({ kind: 'bad_request' });
    expect(readInvocationRequest({})).toEqual({ kind: 'bad_request', field: 'invocation_id' });
  });

  it('reads the environment with the contract defaults', () => {
    expect(readServiceConfig({})).toEqual({
      servers: ['nats://127.0.0.1:4222'],
      prefix: 'postern',
      home: './.postern',
      configPath: '.postern/postern.yaml',
    });
    expect(
      readServiceConfig({ NATS_URL: 'nats://a:1, nats://b:2', POSTERN_PREFIX: 'x', POSTERN_HOME: '/h', POSTERN_CONFIG: '/c.yaml' }),
    ).toEqual({ servers: ['nats://a:1', 'nats://b:2'], prefix: 'x', home: '/h', configPath: '/c.yaml' });
  });
});
