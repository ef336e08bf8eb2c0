import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, EventType, Outcome, Phase, Retry, ServiceName, Status } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery, type DeliveryHarness } from './delivery-test-harness.js';
import { completeResponse, seedDispatched, TEST_POLICY_YAML } from './delivery-test-fixtures.js';
import { ResultCommitHandler } from './result-commit.handler.js';

let nats: NatsServerHandle;
let h: DeliveryHarness;

beforeAll(async () => {
  nats = await startNatsServer();
  h = await startDelivery(nats.url, TEST_POLICY_YAML);
});

afterAll(async () => {
  await h?.close();
  await nats?.stop();
});

async function storeFailure(id: string) {
  const failed = await h.waitForEvent(id, EventType.REMOTE_RESPONSE_COMPLETE, 8);
  expect(failed).not.toBeNull();
  expect(failed!.data).toMatchObject({ code: Code.RESULT_STORE_FAILED, intervention_required: true });
  const events = await h.events(id);
  expect(events.some((e) => e.type === EventType.RESULT_COMMITTED)).toBe(false);
  return h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms: 0 });
}

describe('given a complete response whose stored result matches the journal', () => {
  it('appends RESULT_COMMITTED with the digest and object the dispatcher recorded', async () => {
    const id = await seedDispatched(h.journal);
    const { event, stored } = await completeResponse(h.res, h.journal, id);
    const committed = await h.waitForEvent(id, EventType.RESULT_COMMITTED);
    expect(committed).not.toBeNull();
    expect(committed!.data).toEqual({ result_digest: stored.result_digest, result_object: stored.result_object });
    expect(committed!).toMatchObject({ attempt: 1, generation: 1, service: ServiceName.delivery, n: event.n + 1 });
    const view = await h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms: 0 });
    expect(view).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, error: null });
    expect(view.result).toEqual({ result_digest: stored.result_digest, result_object: stored.result_object });
  });

  it('commits a rejected (404) result too, keeping its outcome and code', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, { status: 404, body: new TextEncoder().encode('nope') });
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const view = await h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms: 0 });
    expect(view).toMatchObject({ outcome: Outcome.rejected, error: { code: Code.REMOTE_REJECTED, retry: Retry.after_correction } });
  });

  it('does nothing more when the same event is handled again (redelivery)', async () => {
    const id = await seedDispatched(h.journal);
    const { event } = await completeResponse(h.res, h.journal, id);
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const before = (await h.events(id)).length;
    const handler = h.app.get(ResultCommitHandler);
    await expect(handler.handle(event)).resolves.toBe('ack');
    await expect(handler.handle(event)).resolves.toBe('ack');
    expect((await h.events(id)).length).toBe(before);
  });

  it('commits an incomplete (truncated) result: status and headers only', async () => {
    const id = await seedDispatched(h.journal);
    const { stored } = await completeResponse(h.res, h.journal, id, { complete: false });
    const committed = await h.waitForEvent(id, EventType.RESULT_COMMITTED);
    expect(committed?.data['result_digest']).toBe(stored.result_digest);
  });
});

describe('given a stored result that does not match the journal', () => {
  it('reports a tampered body as RESULT_STORE_FAILED: result_delivery, outcome kept, retry never, intervention required', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, {
      tamper: async (stored) => {
        await h.res.objects.results.putBlob({ name: `${stored.result_object}.body` }, new TextEncoder().encode('{"ok":false}'));
      },
    });
    const view = await storeFailure(id);
    expect(view).toMatchObject({
      status: Status.resolved,
      outcome: Outcome.committed,
      result: null,
      error: { code: Code.RESULT_STORE_FAILED, phase: Phase.result_delivery, outcome: Outcome.committed, retry: Retry.never },
      evidence: { intervention_required: true, stage: 'result_store' },
    });
  });

  it('reports tampered metadata (a changed status) the same way', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, {
      tamper: async (stored) => {
        const meta = await h.res.objects.results.getBlob(`${stored.result_object}.meta`);
        const text = new TextDecoder().decode(meta!).replace('"status":200', '"status":201');
        await h.res.objects.results.putBlob({ name: `${stored.result_object}.meta` }, new TextEncoder().encode(text));
      },
    });
    const view = await storeFailure(id);
    expect(view.error.code).toBe(Code.RESULT_STORE_FAILED);
  });

  it('reports a result object that was never stored', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, { skipStore: true });
    const view = await storeFailure(id);
    expect(view).toMatchObject({ outcome: Outcome.committed, evidence: { intervention_required: true } });
  });

  it('reports an event whose digest is not the stored one', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, { digest: `sha256:${'0'.repeat(64)}` });
    const view = await storeFailure(id);
    expect(view.error).toMatchObject({ code: Code.RESULT_STORE_FAILED, retry: Retry.never });
  });

  it('keeps a rejected outcome in the store failure', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, { status: 403, skipStore: true });
    const view = await storeFailure(id);
    expect(view.error).toMatchObject({ code: Code.RESULT_STORE_FAILED, outcome: Outcome.rejected, phase: Phase.result_delivery });
  });

  it('appends the store failure once, and never treats it as a response to verify', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id, { skipStore: true });
    await storeFailure(id);
    const count = (await h.events(id)).length;
    const failure = (await h.events(id)).at(-1)!;
    await expect(h.app.get(ResultCommitHandler).handle(failure)).resolves.toBe('ack');
    await new Promise((r) => setTimeout(r, 300));
    expect((await h.events(id)).length).toBe(count);
  });
});
