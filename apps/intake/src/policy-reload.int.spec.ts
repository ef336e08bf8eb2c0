import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code } from '@postern/contract';
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

describe('given an edited policy file', () => {
  it('decides new submissions with the new policy, and keeps the last good one after a broken edit', async () => {
    const local = { url: 'http://127.0.0.1:8080/x', method: 'GET', body: undefined };
    expect((await intake.submit(httpCommand({}, local))).error).toBeNull();

    const path = join(intake.home, 'postern.yaml');
    await writeFile(path, 'targets:\n  - match: "https://api.example.com"\n', 'utf8');
    let code: string | null = null;
    // The store looks at the file at most once a second: poll, bounded.
    for (let i = 0; i < 30 && code !== Code.TARGET_NOT_ALLOWED; i++) {
      await new Promise((r) => setTimeout(r, 100));
      code = (await intake.submit(httpCommand({}, local))).error?.code ?? null;
    }
    expect(code).toBe(Code.TARGET_NOT_ALLOWED);

    await writeFile(path, 'targets: [this is not: a policy\n', 'utf8');
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await intake.submit(httpCommand({}, local))).error?.code).toBe(Code.TARGET_NOT_ALLOWED);
    expect((await intake.submit(httpCommand())).error).toBeNull();
  });
});
