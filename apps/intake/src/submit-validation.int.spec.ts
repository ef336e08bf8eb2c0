import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, EventType, Outcome, Phase, Retry, Status } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACTED } from './accepted-command.js';
import { startIntake, type IntakeHarness } from './intake-test-harness.js';
import { BEARER, HEADER_KEY, httpCommand, requestId, SSH_KEY, sshCommand, TEST_POLICY_YAML } from './intake-test-fixtures.js';

let nats: NatsServerHandle;
let intake: IntakeHarness;

beforeAll(async () => {
  nats = await startNatsServer();
  intake = await startIntake(nats.url, TEST_POLICY_YAML);
  await intake.putCredential(BEARER);
  await intake.putCredential(HEADER_KEY);
  await intake.putCredential(SSH_KEY);
});

afterAll(async () => {
  await intake?.close();
  await nats?.stop();
});

/** Submits, then checks the validation record in the reply and in the journal. */
async function expectRejected(command: Record<string, unknown>, code: Code, field: string): Promise<any> {
  const reply = await intake.submit(command);
  expect(reply.status).toBe(Status.resolved);
  expect(reply.outcome).toBe(Outcome.not_attempted);
  expect(reply.client_request_id).toBe(command['client_request_id']);
  expect(reply.error).toMatchObject({
    code,
    phase: Phase.validation,
    outcome: Outcome.not_attempted,
    retry: Retry.after_correction,
    field,
  });
  const events = await intake.events(reply.invocation_id);
  expect(events.map((e) => e.type)).toEqual([EventType.ACTION_ACCEPTED, EventType.PREFLIGHT_REJECTED]);
  expect(events[1]!.data).toMatchObject({ code, field });
  expect(reply.journal).toMatchObject({ events: 2, first_seq: events[0]!.seq, last_seq: events[1]!.seq });
  return { reply, events };
}

describe('given a command with a missing field', () => {
  it('is MISSING_FIELD for action', async () => {
    const { action: _a, ...command } = httpCommand();
    const { events } = await expectRejected(command, Code.MISSING_FIELD, 'action');
    expect(events[0]!.data['command']).toBeNull();
  });

  it('is MISSING_FIELD for credential', async () => {
    const { credential: _c, ...command } = httpCommand();
    await expectRejected(command, Code.MISSING_FIELD, 'credential');
  });

  it('is MISSING_FIELD for http.url', async () => {
    await expectRejected(httpCommand({}, { url: undefined }), Code.MISSING_FIELD, 'http.url');
  });
});

describe('given a command with an invalid target or a wrongly typed field', () => {
  it('is INVALID_TARGET for user info in the URL', async () => {
    await expectRejected(httpCommand({}, { url: 'https://user:pw@api.example.com/v1/charges' }), Code.INVALID_TARGET, 'http.url');
  });

  it('is INVALID_TARGET for a malformed URL', async () => {
    await expectRejected(httpCommand({}, { url: 'https://api.example.com:99999/' }), Code.INVALID_TARGET, 'http.url');
  });

  it('is INVALID_TARGET for a URL of the wrong type', async () => {
    await expectRejected(httpCommand({}, { url: 42 }), Code.INVALID_TARGET, 'http.url');
  });

  it('is INVALID_TARGET for timeout_ms of the wrong type', async () => {
    await expectRejected(httpCommand({ timeout_ms: '30000' }), Code.INVALID_TARGET, 'timeout_ms');
  });

  it('is INVALID_TARGET for an SSH port out of range', async () => {
    await expectRejected(sshCommand({ ssh: { host: '127.0.0.1', port: 70000, command: 'uptime' } }), Code.INVALID_TARGET, 'ssh.port');
  });
});

describe('given an unsupported action or method', () => {
  it('is UNSUPPORTED_ACTION for the action', async () => {
    const { events } = await expectRejected(httpCommand({ action: 'ftp.get' }), Code.UNSUPPORTED_ACTION, 'action');
    expect(events[0]!.data).toMatchObject({ action: 'ftp.get', caller: 'agent-7', command: null });
  });

  it('is UNSUPPORTED_ACTION for the HTTP method', async () => {
    await expectRejected(httpCommand({}, { method: 'TRACE' }), Code.UNSUPPORTED_ACTION, 'http.method');
  });
});

describe('given a command the policy does not allow', () => {
  it('is PAYLOAD_LIMIT for a body over the target limit', async () => {
    await expectRejected(httpCommand({}, { body: { text: 'x'.repeat(65) } }), Code.PAYLOAD_LIMIT, 'http.body');
  });

  it('accepts a body exactly at the target limit', async () => {
    const reply = await intake.submit(httpCommand({}, { body: { text: 'x'.repeat(64) } }));
    expect(reply.error).toBeNull();
  });

  it('is TARGET_NOT_ALLOWED for a URL outside the policy', async () => {
    await expectRejected(httpCommand({}, { url: 'https://evil.example.net/steal' }), Code.TARGET_NOT_ALLOWED, 'http.url');
  });

  it('is TARGET_NOT_ALLOWED for an SSH host outside the policy', async () => {
    await expectRejected(sshCommand({ ssh: { host: '10.1.2.3', command: 'uptime' } }), Code.TARGET_NOT_ALLOWED, 'ssh.host');
  });

  it('is UNKNOWN_CREDENTIAL without echoing the credential id', async () => {
    const secretName = 'acme-prod-root-token';
    const { reply, events } = await expectRejected(httpCommand({ credential: secretName }), Code.UNKNOWN_CREDENTIAL, 'credential');
    expect(reply.error.message).not.toContain(secretName);
    expect(JSON.stringify(events[1]!.data)).not.toContain(secretName);
  });
});

describe('given a header the caller may not set', () => {
  it.each([
    ['authorization', 'Authorization', 'Bearer abc'],
    ['cookie', 'Cookie', 'session=abc'],
    ['host', 'Host', 'elsewhere.example'],
  ])('is FORBIDDEN_HEADER for %s', async (lower, name, value) => {
    const { events } = await expectRejected(
      httpCommand({}, { headers: { [name]: value } }),
      Code.FORBIDDEN_HEADER,
      `http.headers.${lower}`,
    );
    expect(events[0]!.data['command']).toBeTruthy();
  });

  it("is FORBIDDEN_HEADER for the credential's injected header, whose value is redacted", async () => {
    const command = httpCommand(
      { credential: HEADER_KEY.id },
      { url: 'http://127.0.0.1:8080/search', method: 'GET', body: undefined, headers: { 'X-Api-Key': 'caller-supplied-key' } },
    );
    const { events } = await expectRejected(command, Code.FORBIDDEN_HEADER, 'http.headers.x-api-key');
    const accepted = events[0]!.data['command'] as { http: { headers: Record<string, string> } };
    expect(accepted.http.headers['X-Api-Key']).toBe(REDACTED);
  });

  it("is FORBIDDEN_HEADER for the policy's idempotency header", async () => {
    await expectRejected(
      httpCommand({}, { headers: { 'idempotency-key': 'k-1' } }),
      Code.FORBIDDEN_HEADER,
      'http.headers.idempotency-key',
    );
  });
});

describe('given an idempotency key', () => {
  it('is IDEMPOTENCY_UNSUPPORTED on a target without a contract', async () => {
    await expectRejected(
      httpCommand({ idempotency_key: 'k-unsupported' }, { url: 'http://127.0.0.1:8080/x', method: 'POST' }),
      Code.IDEMPOTENCY_UNSUPPORTED,
      'idempotency_key',
    );
  });

  it('is IDEMPOTENCY_MISMATCH when the key is reused in its scope for another command', async () => {
    const key = `charge-${requestId('k')}`;
    const first = await intake.submit(httpCommand({ idempotency_key: key }, { body: { json: { amount: 500 } } }));
    expect(first.error).toBeNull();
    const { reply } = await expectRejected(
      httpCommand({ idempotency_key: key }, { body: { json: { amount: 900 } } }),
      Code.IDEMPOTENCY_MISMATCH,
      'idempotency_key',
    );
    expect(reply.invocation_id).not.toBe(first.invocation_id);
  });
});
