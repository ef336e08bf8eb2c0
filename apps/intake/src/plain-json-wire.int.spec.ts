import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, Outcome, Phase, Retry } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIntake, type IntakeHarness } from './intake-test-harness.js';
import { BEARER, httpCommand, TEST_POLICY_YAML } from './intake-test-fixtures.js';

let nats: NatsServerHandle;
let intake: IntakeHarness;

beforeAll(async () => {
  nats = await startNatsServer();
  intake = await startIntake(nats.url, TEST_POLICY_YAML);
  await intake.putCredential(BEARER);
});

afterAll(async () => {
  await intake?.close();
  await nats?.stop();
});

async function requestKeys(): Promise<string[]> {
  const keys: string[] = [];
  for await (const k of await intake.res.kv.requests.keys()) keys.push(k);
  return keys;
}

function expectBadRequest(reply: any, field?: string): void {
  expect(reply).toEqual({
    error: {
      code: Code.BAD_REQUEST,
      phase: Phase.validation,
      outcome: Outcome.not_attempted,
      retry: Retry.after_correction,
      message: expect.any(String),
      ...(field === undefined ? {} : { field }),
    },
  });
}

describe('given a request that is not a usable JSON object', () => {
  it('answers malformed JSON with BAD_REQUEST and writes nothing', async () => {
    const before = await intake.streamMessages();
    const reply = await intake.requestRaw(intake.subjects.actionsSubmit, '{"client_request_id": "req-1", ');
    expectBadRequest(reply);
    expect(await intake.streamMessages()).toBe(before);
    expect(await requestKeys()).toEqual([]);
  });

  it('answers bytes that are not UTF-8 with BAD_REQUEST', async () => {
    const reply = await intake.requestRaw(intake.subjects.actionsSubmit, new Uint8Array([0xff, 0xfe, 0x7b]));
    expectBadRequest(reply);
  });

  it.each([
    ['an array', '[1,2]'],
    ['a string', '"submit"'],
    ['a number', '42'],
    ['null', 'null'],
  ])('answers %s with BAD_REQUEST and writes nothing', async (_name, body) => {
    const before = await intake.streamMessages();
    expectBadRequest(await intake.requestRaw(intake.subjects.actionsSubmit, body));
    expect(await intake.streamMessages()).toBe(before);
  });

  it('answers a command without client_request_id with BAD_REQUEST on that field', async () => {
    const before = await intake.streamMessages();
    const { client_request_id: _omit, ...command } = httpCommand();
    expectBadRequest(await intake.submit(command), 'client_request_id');
    expect(await intake.streamMessages()).toBe(before);
    expect(await requestKeys()).toEqual([]);
  });

  it('answers an unusable client_request_id with BAD_REQUEST', async () => {
    expectBadRequest(await intake.submit(httpCommand({ client_request_id: 'has spaces/and slashes' })), 'client_request_id');
    expectBadRequest(await intake.submit(httpCommand({ client_request_id: 'x'.repeat(129) })), 'client_request_id');
    expectBadRequest(await intake.submit(httpCommand({ client_request_id: 17 })), 'client_request_id');
  });

  it('answers malformed get and cancel requests with BAD_REQUEST', async () => {
    expectBadRequest(await intake.requestRaw(intake.subjects.actionsGet, 'not json'));
    expectBadRequest(await intake.requestRaw(intake.subjects.actionsCancel, '[]'));
    expectBadRequest(await intake.request(intake.subjects.actionsGet, { invocation_id: 5 }), 'invocation_id');
  });
});

describe('given a valid command from a bare NATS client', () => {
  it('replies with a raw RecordView and no framework envelope', async () => {
    const reply = (await intake.submit(httpCommand())) as Record<string, unknown>;
    expect(reply).not.toHaveProperty('response');
    expect(reply).not.toHaveProperty('isDisposed');
    expect(reply).not.toHaveProperty('id');
    expect(reply['invocation_id']).toMatch(/^act_[0-9A-Z]{26}$/);
    expect(reply['status']).toBe('pending');
  });

  it('answers many concurrent submissions each with its own invocation', async () => {
    const commands = Array.from({ length: 20 }, () => httpCommand());
    const replies = await Promise.all(commands.map((c) => intake.submit(c)));
    const ids = new Set(replies.map((r) => r.invocation_id));
    expect(ids.size).toBe(20);
    replies.forEach((r, i) => expect(r.client_request_id).toBe(commands[i]!['client_request_id']));
  });
});
