import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, EventType, Outcome, Phase, Status } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery, type DeliveryHarness } from './delivery-test-harness.js';
import { completeResponse, seedDispatched, TEST_POLICY_YAML } from './delivery-test-fixtures.js';

let nats: NatsServerHandle;
let h: DeliveryHarness;

beforeAll(async () => {
  nats = await startNatsServer();
  // A slow poll: an await that answers quickly was woken by the event itself.
  h = await startDelivery(nats.url, TEST_POLICY_YAML, { tuning: { pollMs: 5_000 } });
});

afterAll(async () => {
  await h?.close();
  await nats?.stop();
});

const awaitView = (id: string, timeout_ms: number) =>
  h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms }, timeout_ms + 10_000);

describe('actions.await', () => {
  it('answers resolved once the result is committed, woken by the events', async () => {
    const id = await seedDispatched(h.journal);
    const started = Date.now();
    const pending = awaitView(id, 20_000);
    await new Promise((r) => setTimeout(r, 200));
    const { stored } = await completeResponse(h.res, h.journal, id);
    const view = await pending;
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(view).toMatchObject({ status: Status.resolved, outcome: Outcome.committed, error: null });
    expect(view.result).toEqual({ result_digest: stored.result_digest, result_object: stored.result_object });
    const events = await h.events(id);
    expect(events.at(-1)!.type).toBe(EventType.RESULT_COMMITTED);
  });

  it('answers the current pending record when timeout_ms passes, adding no event', async () => {
    const id = await seedDispatched(h.journal);
    const before = (await h.events(id)).length;
    const started = Date.now();
    const view = await awaitView(id, 400);
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(350);
    expect(took).toBeLessThan(3_000);
    expect(view).toMatchObject({ invocation_id: id, status: Status.pending, outcome: Outcome.unknown, result: null });
    expect((await h.events(id)).length).toBe(before);
  });

  it('answers at once for a record already resolved and committed', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id);
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const started = Date.now();
    const view = await awaitView(id, 10_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(view.status).toBe(Status.resolved);
  });

  it('answers NOT_FOUND for an unknown invocation and for an id that cannot exist', async () => {
    expect((await awaitView('act_01JD0000000000000000000000', 100)).error).toMatchObject({ code: Code.NOT_FOUND });
    expect((await awaitView('no.such>id', 100)).error).toMatchObject({ code: Code.NOT_FOUND });
  });

  it('refuses a bad timeout_ms as BAD_REQUEST', async () => {
    const reply = await h.request(h.subjects.actionsAwait, { invocation_id: 'act_x', timeout_ms: -5 });
    expect(reply.error).toMatchObject({ code: Code.BAD_REQUEST, field: 'timeout_ms' });
  });

  it('serves several waiters at once', async () => {
    const ids = await Promise.all([seedDispatched(h.journal), seedDispatched(h.journal), seedDispatched(h.journal)]);
    const waits = ids.map((id) => awaitView(id, 15_000));
    await new Promise((r) => setTimeout(r, 200));
    await Promise.all(ids.map((id) => completeResponse(h.res, h.journal, id)));
    const views = await Promise.all(waits);
    expect(views.map((v) => v.status)).toEqual([Status.resolved, Status.resolved, Status.resolved]);
    expect(views.every((v) => v.result !== null)).toBe(true);
  });
});

describe('results.ack', () => {
  it('records RESULT_DELIVERED once for the committed digest and answers delivered: true', async () => {
    const id = await seedDispatched(h.journal);
    const { stored } = await completeResponse(h.res, h.journal, id);
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const view = await h.request(h.subjects.resultsAck, { invocation_id: id, result_digest: stored.result_digest });
    expect(view).toMatchObject({ invocation_id: id, delivered: true, outcome: Outcome.committed });
    const again = await h.request(h.subjects.resultsAck, { invocation_id: id, result_digest: stored.result_digest });
    expect(again.delivered).toBe(true);
    const delivered = (await h.events(id)).filter((e) => e.type === EventType.RESULT_DELIVERED);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.data).toEqual({ result_digest: stored.result_digest });
  });

  it('refuses a digest that does not match as DIGEST_MISMATCH and appends nothing', async () => {
    const id = await seedDispatched(h.journal);
    await completeResponse(h.res, h.journal, id);
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const before = (await h.events(id)).length;
    const reply = await h.request(h.subjects.resultsAck, { invocation_id: id, result_digest: `sha256:${'f'.repeat(64)}` });
    expect(reply.error).toMatchObject({ code: Code.DIGEST_MISMATCH, field: 'result_digest', outcome: Outcome.committed });
    expect((await h.events(id)).length).toBe(before);
    const view = await awaitView(id, 0);
    expect(view.delivered).toBe(false);
  });

  it('answers NOT_FOUND before a result is committed, and for an unknown id', async () => {
    const id = await seedDispatched(h.journal);
    const before = (await h.events(id)).length;
    expect((await h.request(h.subjects.resultsAck, { invocation_id: id, result_digest: 'sha256:00' })).error).toMatchObject({
      code: Code.NOT_FOUND,
    });
    expect((await h.events(id)).length).toBe(before);
    expect(
      (await h.request(h.subjects.resultsAck, { invocation_id: 'act_01JD0000000000000000000000', result_digest: 'sha256:00' })).error,
    ).toMatchObject({ code: Code.NOT_FOUND });
  });

  it('refuses an ack without result_digest as BAD_REQUEST', async () => {
    const reply = await h.request(h.subjects.resultsAck, { invocation_id: 'act_x' });
    expect(reply.error).toMatchObject({ code: Code.BAD_REQUEST, field: 'result_digest' });
  });
});

describe('cancel after dispatch, then a late result', () => {
  it('await answers the cancelled record at once: resolved, cancelled, CALLER_CANCELLED, outcome unknown', async () => {
    const id = await seedDispatched(h.journal, { cancelled: true });
    const view = await awaitView(id, 5_000);
    expect(view).toMatchObject({
      status: Status.resolved,
      cancelled: true,
      outcome: Outcome.unknown,
      error: { code: Code.CALLER_CANCELLED, phase: Phase.remote_execution },
    });
  });

  it('commits and serves the late result, and the record stays cancelled', async () => {
    const id = await seedDispatched(h.journal, { cancelled: true });
    const body = new TextEncoder().encode('late but real');
    const { stored } = await completeResponse(h.res, h.journal, id, { body });
    expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
    const view = await awaitView(id, 5_000);
    expect(view).toMatchObject({ status: Status.resolved, cancelled: true, outcome: Outcome.committed, error: null });
    const fetched = await h.request(h.subjects.resultsFetch, { invocation_id: id });
    expect(fetched.result_digest).toBe(stored.result_digest);
    expect(Buffer.from(fetched.http.body.base64, 'base64').toString()).toBe('late but real');
    const acked = await h.request(h.subjects.resultsAck, { invocation_id: id, result_digest: stored.result_digest });
    expect(acked).toMatchObject({ delivered: true, cancelled: true });
  });
});
