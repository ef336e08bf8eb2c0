import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery, type DeliveryHarness } from './delivery-test-harness.js';
import { completeResponse, seedDispatched, TEST_POLICY_YAML } from './delivery-test-fixtures.js';
import { REPLY_EXCEEDS_MAX_PAYLOAD } from './result-hand-over.js';

// A nats-server whose max_payload is smaller than some replies: the NATS
// client would refuse to publish them and the caller would hear nothing.

const MAX_PAYLOAD = 100_000;

let confDir: string;
let nats: NatsServerHandle;
let h: DeliveryHarness;

beforeAll(async () => {
  confDir = await mkdtemp(join(tmpdir(), 'postern-hand-over-'));
  const conf = join(confDir, 'nats.conf');
  await writeFile(conf, `max_payload: ${MAX_PAYLOAD}\n`);
  nats = await startNatsServer({ args: ['-c', conf] });
  h = await startDelivery(nats.url, TEST_POLICY_YAML);
});

afterAll(async () => {
  await h?.close();
  await nats?.stop();
  await rm(confDir, { recursive: true, force: true });
});

async function committed(bytes: number) {
  const id = await seedDispatched(h.journal);
  const { stored } = await completeResponse(h.res, h.journal, id, { body: new Uint8Array(randomBytes(bytes)) });
  expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
  return { id, stored };
}

const failures = async (id: string) => (await h.events(id)).filter((e) => e.type === EventType.RESULT_DELIVERY_FAILED);

describe('a reply larger than the server max_payload', () => {
  it('answers every one of concurrent fetches at once, and journals the failed hand-over once', async () => {
    // 90 000 bytes are inline (at most 256 KiB); in base64 they are 120 000.
    const { id, stored } = await committed(90_000);
    const replies = await Promise.all(Array.from({ length: 5 }, () => h.request(h.subjects.resultsFetch, { invocation_id: id }, 3_000)));
    for (const reply of replies) {
      expect(reply.error).toMatchObject({
        code: Code.RESULT_DELIVERY_FAILED,
        phase: Phase.result_delivery,
        outcome: Outcome.committed,
        retry: Retry.fetch_result,
      });
      expect(reply.error.message).toContain(`max_payload of ${MAX_PAYLOAD} bytes`);
    }
    const found = await failures(id);
    expect(found).toHaveLength(1);
    expect(found[0]!).toMatchObject({ attempt: 1, generation: 1 });
    expect(found[0]!.data).toMatchObject({ reason: REPLY_EXCEEDS_MAX_PAYLOAD, result_digest: stored.result_digest, max_payload: MAX_PAYLOAD });

    const record = await h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms: 0 });
    expect(record.error).toMatchObject({ code: Code.RESULT_DELIVERY_FAILED, outcome: Outcome.committed, retry: Retry.fetch_result });
  });

  it('refuses a part that does not fit the same way', async () => {
    const { id } = await committed(90_000);
    const reply = await h.request(h.subjects.resultsPart, { invocation_id: id, stream: 'body', seq: 1 }, 3_000);
    expect(reply.error).toMatchObject({ code: Code.RESULT_DELIVERY_FAILED, outcome: Outcome.committed, retry: Retry.fetch_result });
    expect(await failures(id)).toHaveLength(1);
  });

  it('hands over a reply that fits and appends nothing', async () => {
    const { id } = await committed(50_000);
    const before = (await h.events(id)).length;
    const reply = await h.request(h.subjects.resultsFetch, { invocation_id: id }, 3_000);
    expect(reply.error).toBeUndefined();
    expect(Buffer.from(reply.http.body.base64, 'base64').byteLength).toBe(50_000);
    expect(await h.events(id)).toHaveLength(before);
  });
});
