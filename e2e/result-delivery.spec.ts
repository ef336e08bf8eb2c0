import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { hostileBodyBytes } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, HttpFixture } from './support/http-fixture.js';
import { everythingStored, leaks } from './support/leak-scan.js';

// The row "result stored, caller could not be handed it" (CONTRACT.md section
// 6) through the whole stack. The nats-server runs with a max_payload of
// 256 KiB, as some operators run it: a 200 000-byte body is inline in the
// ResultView (at most 256 KiB), but base64 makes that reply larger than any
// message NATS will carry to the caller. The remote's answer is committed;
// only the hand-over fails, and nothing runs again to make up for it.

const BODY_BYTES = 200_000;
const SMALL_MAX_PAYLOAD = 262_144;
const path = `/big/${BODY_BYTES}`;

let f: HttpFixture;
let confDir: string;
let conf: string;
let id = '';

beforeAll(async () => {
  confDir = await mkdtemp(join(tmpdir(), 'postern-e2e-nats-conf-'));
  conf = join(confDir, 'nats.conf');
  await writeFile(conf, `max_payload: ${SMALL_MAX_PAYLOAD}\n`);
  f = await HttpFixture.start({ prefix: 'e2edeliv', responseBodyBytes: 1_048_576, natsArgs: ['-c', conf] });
}, 90_000);

afterAll(async () => {
  await f?.stop();
  await rm(confDir, { recursive: true, force: true });
});

describe('a result that NATS cannot carry to the caller', () => {
  it('is RESULT_DELIVERY_FAILED with the outcome kept and retry fetch_result, journaled once, and nothing runs again', async () => {
    const submitted = await f.stack.request('actions.submit', {
      client_request_id: `deliv-${process.pid}`,
      caller: 'e2e',
      action: 'http.request',
      credential: 'local-api',
      http: { method: 'GET', url: `${f.plain.origin}${path}` },
    });
    id = submitted.invocation_id;
    const view = await f.awaitResolved(id);
    expect(view, JSON.stringify(view)).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(f.plain.effects(path)).toBe(1);

    const refused = await f.stack.request('results.fetch', { invocation_id: id });
    expect(refused.error, JSON.stringify(refused)).toMatchObject({
      code: Code.RESULT_DELIVERY_FAILED,
      phase: Phase.result_delivery,
      outcome: Outcome.committed,
      retry: Retry.fetch_result,
    });
    // The caller (or its operator) learns why and what to do about it.
    expect(refused.error.message).toContain(String(SMALL_MAX_PAYLOAD));
    expect(refused.error.message).toContain('max_payload');

    // Its one part is the same bytes: it does not fit either.
    const part = await f.stack.request('results.part', { invocation_id: id, stream: 'body', seq: 1 });
    expect(part.error, JSON.stringify(part)).toMatchObject({ code: Code.RESULT_DELIVERY_FAILED, outcome: Outcome.committed, retry: Retry.fetch_result });

    const record = await f.stack.request('actions.get', { invocation_id: id });
    expect(record).toMatchObject({ status: 'resolved', outcome: Outcome.committed, delivered: false });
    expect(record.error).toMatchObject({ code: Code.RESULT_DELIVERY_FAILED, phase: Phase.result_delivery, outcome: Outcome.committed, retry: Retry.fetch_result });
    expect(record.result).toEqual(view.result);

    // Three refused hand-overs of one result are one fact in the journal.
    const history = await f.stack.events(id);
    const failures = history.filter((e) => e.type === EventType.RESULT_DELIVERY_FAILED);
    expect(failures).toHaveLength(1);
    const committedAt = history.findIndex((e) => e.type === EventType.RESULT_COMMITTED);
    expect(history.indexOf(failures[0]!)).toBeGreaterThan(committedAt);
    expect(failures[0]!.data).toMatchObject({
      reason: 'reply_exceeds_max_payload',
      result_digest: view.result.result_digest,
      max_payload: SMALL_MAX_PAYLOAD,
    });
    expect((failures[0]!.data as { reply_bytes: number }).reply_bytes).toBeGreaterThan(SMALL_MAX_PAYLOAD);

    const projected = await f.stack.projected(id, (v) => v.error?.code === Code.RESULT_DELIVERY_FAILED);
    expect(projected.error).toMatchObject({ phase: Phase.result_delivery, outcome: Outcome.committed, retry: Retry.fetch_result });
    expect(f.plain.effects(path)).toBe(1);
  });

  it('once max_payload allows it, the same fetch hands over the exact bytes, and the ack clears the failure', async () => {
    expect(id).not.toBe('');
    await writeFile(conf, `max_payload: ${4 * SMALL_MAX_PAYLOAD}\n`);
    await f.stack.nats.restart();

    const fetched = await f.stack.requestUntilAnswered('results.fetch', { invocation_id: id });
    expect(fetched.error, JSON.stringify(fetched).slice(0, 500)).toBeUndefined();
    expect(fetched).toMatchObject({ outcome: Outcome.committed, complete: true });
    expect(fetched.http.body_bytes).toBe(BODY_BYTES);
    expect(Buffer.from(fetched.http.body.base64, 'base64').equals(hostileBodyBytes(BODY_BYTES))).toBe(true);

    const acked = await f.stack.request('results.ack', { invocation_id: id, result_digest: fetched.result_digest });
    expect(acked).toMatchObject({ outcome: Outcome.committed, delivered: true, error: null });
    expect((await f.stack.events(id)).filter((e) => e.type === EventType.RESULT_DELIVERY_FAILED)).toHaveLength(1);
    expect(f.plain.effects(path)).toBe(1);
  });
});

describe('the secrets', () => {
  it('appear in no event, KV value, object, log, read-model row, RecordView or result of a failed hand-over', async () => {
    const places = await everythingStored(f.stack);
    expect(places.length).toBeGreaterThan(20);
    expect(leaks(places, [CANARY, 'e2e passphrase, test only'])).toEqual([]);
  });
});
