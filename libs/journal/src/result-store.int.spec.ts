import { describe, expect, it } from 'vitest';
import { canonicalJson } from '@postern/contract';
import { digestOf } from './digest.js';
import { useOwnJournal } from './own-journal.fixture.js';
import {
  putHttpResult,
  putSshResult,
  readResultMeta,
  readResultStream,
  resultDigestOf,
  resultPart,
  RESULT_PART_BYTES,
  verifyStoredResult,
  type HttpResultMeta,
  type SshResultMeta,
} from './result-store.js';

const text = (s: string): Uint8Array => new TextEncoder().encode(s);

describe('result store', () => {
  const own = useOwnJournal('rs');

  it('stores a complete HTTP result as body and meta objects named by invocation and attempt', async () => {
    const body = text('{"id":"ch_1"}');
    const stored = await putHttpResult(own.res, {
      invocation_id: 'act_a',
      attempt: 2,
      status: 201,
      headers: { 'content-type': 'application/json' },
      complete: true,
      body,
    });
    expect(stored.result_object).toBe('act_a.2');
    expect(stored.body_digest).toBe(digestOf(body));
    expect(stored.body_bytes).toBe(body.byteLength);

    const meta = (await readResultMeta(own.res, 'act_a.2')) as HttpResultMeta;
    expect(meta).toEqual({
      status: 201,
      headers: { 'content-type': 'application/json' },
      complete: true,
      streams: { body: { bytes: body.byteLength, digest: digestOf(body), parts: 1 } },
    });
    expect(stored.result_digest).toBe(digestOf(canonicalJson(meta)));
    expect(resultDigestOf(meta)).toBe(stored.result_digest);
    expect(await readResultStream(own.res, 'act_a.2', 'body')).toEqual(body);
    expect((await own.res.objects.results.info('act_a.2.meta'))?.size).toBeGreaterThan(0);
  });

  it('keeps status and headers but no body for an incomplete result', async () => {
    const stored = await putHttpResult(own.res, {
      invocation_id: 'act_b',
      attempt: 1,
      status: 200,
      headers: { 'content-type': 'text/plain' },
      complete: false,
      body: text('partial bytes that must not be kept'),
    });
    expect(stored.body_digest).toBeNull();
    expect(stored.body_bytes).toBe(0);
    const meta = (await readResultMeta(own.res, stored.result_object)) as HttpResultMeta;
    expect(meta.complete).toBe(false);
    expect(meta.streams).toEqual({});
    expect(await readResultStream(own.res, stored.result_object, 'body')).toBeNull();
    expect(await verifyStoredResult(own.res, stored.result_object, stored.result_digest)).toEqual({ ok: true, meta });
  });

  it('counts 256 KiB parts of a large body and stores it whole', async () => {
    const body = new Uint8Array(RESULT_PART_BYTES * 2 + 10).map((_, i) => i % 253);
    const stored = await putHttpResult(own.res, {
      invocation_id: 'act_c',
      attempt: 1,
      status: 200,
      headers: {},
      complete: true,
      body,
    });
    const meta = (await readResultMeta(own.res, stored.result_object)) as HttpResultMeta;
    expect(meta.streams.body).toEqual({ bytes: body.byteLength, digest: digestOf(body), parts: 3 });
    const back = await readResultStream(own.res, stored.result_object, 'body');
    expect(back?.byteLength).toBe(body.byteLength);
    expect(digestOf(back!)).toBe(digestOf(body));
  });

  it('verifies a stored result against the journal digest and notices tampering', async () => {
    const stored = await putHttpResult(own.res, {
      invocation_id: 'act_d',
      attempt: 1,
      status: 200,
      headers: {},
      complete: true,
      body: text('original'),
    });
    expect((await verifyStoredResult(own.res, stored.result_object, stored.result_digest)).ok).toBe(true);
    expect(await verifyStoredResult(own.res, stored.result_object, digestOf('other'))).toEqual({ ok: false, reason: 'digest_mismatch' });
    expect(await verifyStoredResult(own.res, 'act_none.1', stored.result_digest)).toEqual({ ok: false, reason: 'missing' });
    await own.res.objects.results.putBlob({ name: `${stored.result_object}.body` }, text('tampered'));
    expect(await verifyStoredResult(own.res, stored.result_object, stored.result_digest)).toEqual({
      ok: false,
      reason: 'stream_mismatch',
    });
  });

  it('stores an SSH result with both outputs under one digest', async () => {
    const stored = await putSshResult(own.res, {
      invocation_id: 'act_e',
      attempt: 1,
      exit_status: 0,
      exit_signal: null,
      complete: true,
      stdout: { bytes: text('up 3 days'), complete: true },
      stderr: { bytes: new Uint8Array(0), complete: true },
    });
    const meta = (await readResultMeta(own.res, stored.result_object)) as SshResultMeta;
    expect(meta.exit_status).toBe(0);
    expect(meta.streams.stdout).toEqual({ bytes: 9, digest: digestOf(text('up 3 days')), parts: 1, complete: true });
    expect(meta.streams.stderr?.bytes).toBe(0);
    expect(await readResultStream(own.res, stored.result_object, 'stdout')).toEqual(text('up 3 days'));
    expect((await verifyStoredResult(own.res, stored.result_object, stored.result_digest)).ok).toBe(true);
  });
});

describe('resultPart', () => {
  it('slices a stream into numbered parts with digests, the last one carrying the totals', () => {
    const bytes = new Uint8Array(RESULT_PART_BYTES + 5).map((_, i) => i % 7);
    const first = resultPart(bytes, 1)!;
    expect(first.data.byteLength).toBe(RESULT_PART_BYTES);
    expect(first.last).toBe(false);
    expect(first.part_digest).toBe(digestOf(bytes.subarray(0, RESULT_PART_BYTES)));
    expect(first.total_bytes).toBeUndefined();
    const second = resultPart(bytes, 2)!;
    expect(second.data.byteLength).toBe(5);
    expect(second.last).toBe(true);
    expect(second.total_bytes).toBe(bytes.byteLength);
    expect(second.digest).toBe(digestOf(bytes));
    expect(resultPart(bytes, 3)).toBeNull();
    expect(resultPart(bytes, 0)).toBeNull();
    expect(resultPart(bytes, 1.5)).toBeNull();
  });

  it('gives an empty stream one empty last part', () => {
    const part = resultPart(new Uint8Array(0), 1)!;
    expect(part).toMatchObject({ last: true, total_bytes: 0, digest: digestOf(new Uint8Array(0)) });
    expect(part.data.byteLength).toBe(0);
  });

  it('reassembles exactly from its parts', () => {
    const bytes = new Uint8Array(RESULT_PART_BYTES * 3).map((_, i) => (i * 31) % 256);
    const chunks: Uint8Array[] = [];
    for (let seq = 1; seq <= 5; seq++) {
      const p = resultPart(bytes, seq);
      if (p === null) break;
      chunks.push(p.data);
      if (p.last) break;
    }
    expect(chunks).toHaveLength(3);
    const joined = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
    let off = 0;
    for (const c of chunks) {
      joined.set(c, off);
      off += c.byteLength;
    }
    expect(digestOf(joined)).toBe(digestOf(bytes));
  });
});
