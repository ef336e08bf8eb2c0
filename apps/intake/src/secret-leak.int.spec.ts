import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogFields, ServiceLog } from '@postern/service';
import { allStreamBytes } from '@postern/service/testing';
import { startIntake, type IntakeHarness } from './intake-test-harness.js';
import { BEARER, HEADER_KEY, httpCommand, TEST_POLICY_YAML } from './intake-test-fixtures.js';

let nats: NatsServerHandle;
let intake: IntakeHarness;
const logLines: string[] = [];
const capture: ServiceLog = {
  info: (event: string, fields?: LogFields) => void logLines.push(JSON.stringify({ event, ...fields })),
  error: (event: string, fields?: LogFields) => void logLines.push(JSON.stringify({ event, ...fields })),
};

beforeAll(async () => {
  nats = await startNatsServer();
  intake = await startIntake(nats.url, TEST_POLICY_YAML, capture);
  await intake.putCredential(BEARER);
  await intake.putCredential(HEADER_KEY);
});

afterAll(async () => {
  await intake?.close();
  await nats?.stop();
});

/** The forms a leaked secret could take in stored bytes. */
function forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  return [secret, bytes.toString('base64'), bytes.toString('hex'), encodeURIComponent(secret)];
}

describe('given secrets in headers the caller may not set', () => {
  const canaries = {
    authorization: 'Bearer canary-auth-5f1c2e9a7b',
    proxy: 'Basic canary-proxy-0d3e8a1f44',
    cookie: 'sid=canary-cookie-c0ffee1234',
    apiKey: 'canary-apikey-9e8d7c6b5a',
  };

  it('refuses them and keeps their values out of every stream message, reply and log line', async () => {
    const replies = [
      await intake.submit(httpCommand({}, { headers: { Authorization: canaries.authorization } })),
      await intake.submit(httpCommand({}, { headers: { 'Proxy-Authorization': canaries.proxy } })),
      await intake.submit(httpCommand({}, { headers: { Cookie: canaries.cookie } })),
      await intake.submit(
        httpCommand(
          { credential: HEADER_KEY.id },
          { url: 'http://127.0.0.1:9/x', method: 'GET', body: undefined, headers: { 'x-api-key': canaries.apiKey } },
        ),
      ),
    ];
    for (const reply of replies) expect(reply.error.code).toBe(Code.FORBIDDEN_HEADER);
    const stored = (await allStreamBytes(intake.res)).join('\n');
    expect(stored).toContain('ACTION_ACCEPTED');
    const everything = [stored, JSON.stringify(replies), logLines.join('\n')].join('\n');
    for (const secret of Object.values(canaries)) {
      for (const form of forms(secret)) expect(everything).not.toContain(form);
    }
  });

  it('keeps them out of the journal even when the command is otherwise invalid', async () => {
    const secret = 'Bearer canary-invalid-77aa11';
    const reply = await intake.submit(httpCommand({ action: 'nope' }, { headers: { Authorization: secret } }));
    expect(reply.error.code).toBe(Code.UNSUPPORTED_ACTION);
    const stored = (await allStreamBytes(intake.res)).join('\n');
    for (const form of forms(secret)) expect(stored).not.toContain(form);
  });
});
