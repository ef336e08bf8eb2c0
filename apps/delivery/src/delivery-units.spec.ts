import {
  Code,
  EventType,
  EvidenceSource,
  Outcome,
  Phase,
  Retry,
  Stage,
  Status,
  toRecordView,
  type StoredEvent,
} from '@postern/contract';
import { MalformedRequest } from '@postern/service';
import { describe, expect, it } from 'vitest';
import { readAckRequest, readAwaitRequest, readPartRequest } from './delivery-request.js';
import { asEvent, commitDraft, storeFailureDraft, StoreFailure } from './result-commit.js';
import { awaitIsOver, awaitsVerification, foldHistory, settlementOf } from './result-history.js';
import { resultView, streamServable } from './result-view.js';
import { resultExpired } from './retention.js';
import { StreamCache } from './stream-cache.js';

const ID = 'act_01JD0000000000000000000000';
const NOW = Date.parse('2026-11-29T18:10:00.000Z');
const binding = {
  action: 'http.request',
  target: 'http://127.0.0.1:8080/x',
  method: 'GET',
  policy_match: 'http://127.0.0.1:*',
  policy_digest: 'sha256:p',
  credential: { id: 'c', version: 1, type: 'http_bearer', injection: 'http_bearer' },
  body_digest: null,
  idempotency: null,
  known_idempotent: false,
  idempotent_assertion: null,
  budget: 5,
  connect_attempts: 3,
  auto_retry: false,
  lease_ms: 30000,
};

function history(extra: Array<[EventType, Record<string, unknown>]> = []): StoredEvent[] {
  const base: Array<[EventType, Record<string, unknown>]> = [
    [EventType.ACTION_ACCEPTED, { client_request_id: 'r1' }],
    [EventType.PREFLIGHT_VALIDATED, { binding, request_fingerprint: 'sha256:f' }],
    [EventType.CREDENTIAL_AUTHORIZED, { credential: { id: 'c', version: 1, injection: 'http_bearer' } }],
    [EventType.DISPATCH_STARTED, { connect_try: 1 }],
  ];
  return [...base, ...extra].map(([type, data], i) => ({
    type,
    invocation_id: ID,
    n: i + 1,
    attempt: i >= 3 ? 1 : 0,
    generation: i >= 3 ? 1 : 0,
    at: '2026-11-29T18:00:00.000Z',
    source: EvidenceSource.transport_observed,
    service: 'test',
    data,
    seq: 10 + i,
  }));
}

const complete: [EventType, Record<string, unknown>] = [
  EventType.REMOTE_RESPONSE_COMPLETE,
  { outcome: Outcome.committed, code: null, retry_rule: Retry.never, stage: Stage.response_body, response_digest: 'sha256:d', result_object: `${ID}.1` },
];

function withDraft(h: StoredEvent[], draft: ReturnType<typeof commitDraft>): StoredEvent[] {
  return [...h, { ...asEvent(draft, ID, h.length + 1), seq: h.at(-1)!.seq + 1 }];
}

describe('awaitsVerification', () => {
  it('waits on a stored response, not on a refusal that stored nothing (an SSH channel or exec refused)', () => {
    const stored = history([complete]).at(-1);
    const refused = history([
      [EventType.REMOTE_RESPONSE_COMPLETE, { outcome: Outcome.rejected, code: 'SSH_EXEC_REJECTED', retry_rule: Retry.after_correction, stage: Stage.exec_request }],
    ]).at(-1);
    expect(awaitsVerification(stored!)).toBe(true);
    expect(awaitsVerification(refused!)).toBe(false);
  });
});

describe('request readers', () => {
  it('defaults an absent timeout_ms and refuses negative or fractional ones', () => {
    expect(readAwaitRequest({ invocation_id: 'a' })).toEqual({ ok: true, value: { invocationId: 'a', timeoutMs: null } });
    expect(readAwaitRequest({ invocation_id: 'a', timeout_ms: 1.5 })).toEqual({ ok: false, field: 'timeout_ms' });
    expect(readAwaitRequest({ invocation_id: 'a', timeout_ms: -1 })).toEqual({ ok: false, field: 'timeout_ms' });
  });

  it('refuses what is not a JSON object, without naming a field', () => {
    expect(readAwaitRequest(new MalformedRequest('not JSON'))).toEqual({ ok: false });
    expect(readAckRequest([1])).toEqual({ ok: false });
  });

  it('reads a part request and refuses unknown streams and non-integer seqs', () => {
    expect(readPartRequest({ invocation_id: 'a', stream: 'stderr', seq: 2 })).toEqual({
      ok: true,
      value: { invocationId: 'a', stream: 'stderr', seq: 2 },
    });
    expect(readPartRequest({ invocation_id: 'a', stream: 'meta', seq: 1 })).toEqual({ ok: false, field: 'stream' });
    expect(readPartRequest({ invocation_id: 'a', stream: 'body', seq: 1.5 })).toEqual({ ok: false, field: 'seq' });
  });
});

describe('retention', () => {
  it('expires a result exactly retention_s after its commit', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const t = Date.parse(at);
    expect(resultExpired(at, 10, t + 9_999)).toBe(false);
    expect(resultExpired(at, 10, t + 10_000)).toBe(true);
  });

  it('never expires a result whose commit time cannot be read', () => {
    expect(resultExpired('not a time', 1, Date.now() + 1e9)).toBe(false);
  });
});

describe('settling a complete response', () => {
  it('is not over while a complete response waits for its commit, and over once committed', () => {
    const h = history([complete]);
    expect(awaitIsOver(h, foldHistory(ID, h), NOW)).toBe(false);
    const done = withDraft(h, commitDraft(h.at(-1)!, { resultObject: `${ID}.1`, resultDigest: 'sha256:d' }, 'now'));
    expect(settlementOf(done, h.at(-1)!)?.type).toBe(EventType.RESULT_COMMITTED);
    expect(awaitIsOver(done, foldHistory(ID, done), NOW)).toBe(true);
  });

  it('does not count a commit of another digest as the settlement', () => {
    const h = history([complete]);
    const other = withDraft(h, commitDraft(h.at(-1)!, { resultObject: `${ID}.1`, resultDigest: 'sha256:other' }, 'now'));
    expect(settlementOf(other, h.at(-1)!)).toBeNull();
  });

  it('folds the store failure into RESULT_STORE_FAILED: result_delivery, outcome kept, never, intervention required', () => {
    const h = history([complete]);
    const failed = withDraft(h, storeFailureDraft(h.at(-1)!, StoreFailure.digest_mismatch, 'now'));
    const folded = foldHistory(ID, failed);
    expect(folded.refused.size).toBe(0);
    const view = toRecordView(folded.state, Date.now());
    expect(view).toMatchObject({
      status: Status.resolved,
      outcome: Outcome.committed,
      result: null,
      error: { code: Code.RESULT_STORE_FAILED, phase: Phase.result_delivery, outcome: Outcome.committed, retry: Retry.never },
      evidence: { intervention_required: true, stage: Stage.result_store },
    });
    expect(settlementOf(failed, h.at(-1)!)).toBe(failed.at(-1));
    expect(awaitIsOver(failed, folded, NOW)).toBe(true);
  });

  it('is over at once for a resolution that carries no result (cancel after dispatch)', () => {
    const h = history([[EventType.CALLER_CANCELLED, { phase: Phase.remote_execution, dispatched: true }]]);
    expect(awaitIsOver(h, foldHistory(ID, h), NOW)).toBe(true);
  });
});

describe('ResultView', () => {
  const meta = (bytes: number, complete = true) => ({
    status: 200,
    headers: { etag: '"1"' },
    complete,
    streams: complete ? { body: { bytes, digest: 'sha256:b' as const, parts: Math.ceil(bytes / 262144) } } : {},
  });

  it('inlines the body it is given and counts one part for an empty body', () => {
    const v = resultView({ invocationId: ID, outcome: Outcome.committed, resultDigest: 'sha256:r', meta: meta(0), inlined: { body: new Uint8Array(0) } });
    expect(v.http).toEqual({ status: 200, headers: { etag: '"1"' }, body: { base64: '' }, body_bytes: 0, parts: 1 });
    expect(v.ssh).toBeNull();
  });

  it('gives no body and no parts for an incomplete result', () => {
    const v = resultView({ invocationId: ID, outcome: Outcome.committed, resultDigest: 'sha256:r', meta: meta(5, false), inlined: {} });
    expect(v.complete).toBe(false);
    expect(v.http).toEqual({ status: 200, headers: { etag: '"1"' }, body_bytes: 0, parts: 0 });
  });

  it('describes an SSH result by its streams', () => {
    const v = resultView({
      invocationId: ID,
      outcome: Outcome.committed,
      resultDigest: 'sha256:r',
      meta: {
        exit_status: 0,
        exit_signal: null,
        complete: true,
        streams: { stdout: { bytes: 3, digest: 'sha256:o', parts: 1, complete: true } },
      },
      inlined: { stdout: new TextEncoder().encode('up\n') },
    });
    expect(v.http).toBeNull();
    expect(v.ssh).toEqual({
      exit_status: 0,
      exit_signal: null,
      stdout: { base64: Buffer.from('up\n').toString('base64') },
      stdout_bytes: 3,
      stderr_bytes: 0,
      stdout_complete: true,
      stderr_complete: false,
      stdout_parts: 1,
      stderr_parts: 0,
    });
  });

  it('never hands out a partial SSH stream, not even in parts', () => {
    const meta = {
      exit_status: 0,
      exit_signal: null,
      complete: false,
      streams: {
        stdout: { bytes: 65536, digest: 'sha256:o', parts: 1, complete: false },
        stderr: { bytes: 2, digest: 'sha256:e', parts: 1, complete: true },
      },
    };
    expect(streamServable(meta, 'stdout')).toBe(false);
    expect(streamServable(meta, 'stderr')).toBe(true);
    const v = resultView({ invocationId: ID, outcome: Outcome.committed, resultDigest: 'sha256:r', meta, inlined: {} });
    expect(v.ssh).toMatchObject({ stdout_complete: false, stdout_parts: 0, stderr_parts: 1 });
    expect(v.ssh).not.toHaveProperty('stdout');
  });
});

describe('StreamCache', () => {
  it('evicts the least recently used entry past its entry bound', () => {
    const cache = new StreamCache(2, 1_000);
    cache.set('a', new Uint8Array(1));
    cache.set('b', new Uint8Array(1));
    cache.get('a');
    cache.set('c', new Uint8Array(1));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('c')).toBeDefined();
  });

  it('stays within its byte bound and skips values larger than it', () => {
    const cache = new StreamCache(10, 10);
    cache.set('big', new Uint8Array(11));
    expect(cache.get('big')).toBeUndefined();
    cache.set('a', new Uint8Array(6));
    cache.set('b', new Uint8Array(6));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    cache.dropPrefix('b');
    expect(cache.get('b')).toBeUndefined();
  });
});
