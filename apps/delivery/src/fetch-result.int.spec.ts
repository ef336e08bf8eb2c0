import { randomBytes } from 'node:crypto';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { digestOf } from '@postern/journal';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDelivery, type DeliveryHarness } from './delivery-test-harness.js';
import { completeResponse, RETENTION_S, seedDispatched, TEST_POLICY_YAML } from './delivery-test-fixtures.js';

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

afterEach(() => {
  h.clock.offsetMs = 0;
});

async function committed(body: Uint8Array, opts: { status?: number; complete?: boolean } = {}) {
  const id = await seedDispatched(h.journal);
  const { stored } = await completeResponse(h.res, h.journal, id, { body, ...opts });
  expect(await h.waitForEvent(id, EventType.RESULT_COMMITTED)).not.toBeNull();
  return { id, stored };
}

const fetch = (id: string) => h.request(h.subjects.resultsFetch, { invocation_id: id });
const part = (id: string, seq: number, stream = 'body') => h.request(h.subjects.resultsPart, { invocation_id: id, stream, seq });

describe('results.fetch of a committed result', () => {
  it('returns a small body inline: base64 round trip, status, headers, digest, one part', async () => {
    const body = new Uint8Array([0, 1, 2, 250, 251, 255, ...new TextEncoder().encode('héllo')]);
    const { id, stored } = await committed(body);
    const view = await fetch(id);
    expect(view).toMatchObject({
      invocation_id: id,
      outcome: Outcome.committed,
      complete: true,
      result_digest: stored.result_digest,
      ssh: null,
      http: { status: 200, headers: { 'content-type': 'application/json' }, body_bytes: body.byteLength, parts: 1 },
    });
    expect(Buffer.from(view.http.body.base64, 'base64').equals(Buffer.from(body))).toBe(true);
  });

  it('omits a 600 KiB body and serves it in three parts whose digests and total match', async () => {
    const body = new Uint8Array(randomBytes(600 * 1024));
    const { id } = await committed(body);
    const view = await fetch(id);
    expect(view.http).toMatchObject({ body_bytes: body.byteLength, parts: 3 });
    expect(view.http.body).toBeUndefined();
    const chunks: Buffer[] = [];
    for (let seq = 1; seq <= 3; seq++) {
      const p = await part(id, seq);
      const data = Buffer.from(p.data.base64, 'base64');
      expect(p).toMatchObject({ invocation_id: id, stream: 'body', seq, last: seq === 3 });
      expect(p.part_digest).toBe(digestOf(data));
      if (seq < 3) {
        expect(data.byteLength).toBe(262_144);
        expect(p.total_bytes).toBeUndefined();
      } else {
        expect(p.total_bytes).toBe(body.byteLength);
        expect(p.digest).toBe(digestOf(body));
      }
      chunks.push(data);
    }
    expect(Buffer.concat(chunks).equals(Buffer.from(body))).toBe(true);
    const past = await part(id, 4);
    expect(past.error).toMatchObject({ code: Code.NOT_FOUND, field: 'seq' });
    expect((await part(id, 0)).error).toMatchObject({ code: Code.NOT_FOUND, field: 'seq' });
  });

  it('serves a small body as part 1 too, marked last', async () => {
    const body = new TextEncoder().encode('tiny');
    const { id } = await committed(body);
    const p = await part(id, 1);
    expect(p).toMatchObject({ last: true, total_bytes: 4, digest: digestOf(body), part_digest: digestOf(body) });
  });

  it('answers NOT_FOUND (field stream) for a stream the result does not have', async () => {
    const { id } = await committed(new TextEncoder().encode('x'));
    expect((await part(id, 1, 'stdout')).error).toMatchObject({ code: Code.NOT_FOUND, field: 'stream' });
  });

  it('refuses a part request with a bad stream or seq as BAD_REQUEST', async () => {
    const { id } = await committed(new TextEncoder().encode('x'));
    expect((await part(id, 1, 'headers')).error).toMatchObject({ code: Code.BAD_REQUEST, field: 'stream' });
    expect((await h.request(h.subjects.resultsPart, { invocation_id: id, stream: 'body', seq: '1' })).error).toMatchObject({
      code: Code.BAD_REQUEST,
      field: 'seq',
    });
  });

  it('gives an incomplete result status and headers but no body and no parts', async () => {
    const { id } = await committed(new TextEncoder().encode('partial'), { complete: false });
    const view = await fetch(id);
    expect(view).toMatchObject({ complete: false, http: { status: 200, parts: 0 } });
    expect(view.http.body).toBeUndefined();
    expect((await part(id, 1)).error).toMatchObject({ code: Code.NOT_FOUND });
  });

  it('keeps a rejected outcome in the ResultView', async () => {
    const { id } = await committed(new TextEncoder().encode('denied'), { status: 403 });
    const view = await fetch(id);
    expect(view).toMatchObject({ outcome: Outcome.rejected, http: { status: 403 } });
    expect(Buffer.from(view.http.body.base64, 'base64').toString()).toBe('denied');
  });

  it('is a read: fetching and reading parts appends nothing', async () => {
    const { id } = await committed(new TextEncoder().encode('read only'));
    const before = (await h.events(id)).length;
    await fetch(id);
    await fetch(id);
    await part(id, 1);
    expect((await h.events(id)).length).toBe(before);
  });

  it('reports RESULT_STORE_FAILED when the stored bytes changed after the commit', async () => {
    const { id, stored } = await committed(new TextEncoder().encode('original'));
    await h.res.objects.results.putBlob({ name: `${stored.result_object}.body` }, new TextEncoder().encode('forged!!'));
    const reply = await fetch(id);
    expect(reply.error).toMatchObject({ code: Code.RESULT_STORE_FAILED, outcome: Outcome.committed, retry: Retry.never });
  });
});

describe('results.fetch without a servable result', () => {
  it('answers NOT_FOUND for an unknown invocation', async () => {
    const reply = await fetch('act_01JD0000000000000000000000');
    expect(reply.error).toMatchObject({ code: Code.NOT_FOUND, retry: Retry.never });
  });

  it('answers NOT_FOUND with the record outcome before RESULT_COMMITTED', async () => {
    const id = await seedDispatched(h.journal);
    const reply = await fetch(id);
    expect(reply.error).toMatchObject({ code: Code.NOT_FOUND, phase: Phase.result_delivery, outcome: Outcome.unknown });
    expect(reply.error.message).toMatch(/no result has been committed/i);
  });

  it('answers BAD_REQUEST for a body that is not JSON, or has no invocation_id', async () => {
    expect((await h.requestRaw(h.subjects.resultsFetch, '{nope')).error).toMatchObject({ code: Code.BAD_REQUEST });
    expect((await h.request(h.subjects.resultsFetch, { id: 'x' })).error).toMatchObject({
      code: Code.BAD_REQUEST,
      field: 'invocation_id',
    });
  });

  it('answers RESULT_EXPIRED after retention: outcome kept, retry never, and the objects are removed', async () => {
    const { id, stored } = await committed(new TextEncoder().encode('short-lived'));
    expect((await fetch(id)).http.status).toBe(200);
    h.clock.offsetMs = RETENTION_S * 1000 + 1_000;
    const reply = await fetch(id);
    expect(reply.error).toMatchObject({
      code: Code.RESULT_EXPIRED,
      phase: Phase.result_delivery,
      outcome: Outcome.committed,
      retry: Retry.never,
    });
    expect((await part(id, 1)).error).toMatchObject({ code: Code.RESULT_EXPIRED });
    let gone = false;
    for (let i = 0; i < 40 && !gone; i++) {
      const info = await h.res.objects.results.info(`${stored.result_object}.body`);
      gone = info === null || info.deleted;
      if (!gone) await new Promise((r) => setTimeout(r, 50));
    }
    expect(gone).toBe(true);
    // The journal keeps the digest: the record still names the result.
    const view = await h.request(h.subjects.actionsAwait, { invocation_id: id, timeout_ms: 0 });
    expect(view.result.result_digest).toBe(stored.result_digest);
  });

  it('still serves the result just before retention ends', async () => {
    const { id } = await committed(new TextEncoder().encode('still here'));
    h.clock.offsetMs = RETENTION_S * 1000 - 60_000;
    expect((await fetch(id)).http.status).toBe(200);
  });
});
