import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply, type RecordView } from '@postern/contract';
import {
  digestOf,
  readResultMeta,
  readResultStream,
  resultDigestOf,
  type JournalResources,
  type ResultMeta,
  type ResultStreamMeta,
  type ResultStreamName,
} from '@postern/journal';
import type { PolicyStore } from '@postern/policy';
import { errorName, type ServiceLog } from '@postern/service';
import { DELIVERY_CLOCK, DELIVERY_LOG, DELIVERY_POLICY, DELIVERY_RESOURCES, type Clock } from './delivery.constants.js';
import { RecordReader } from './record-reader.js';
import { notCommitted, storeFailed } from './result-errors.js';
import { commitEventOf } from './result-history.js';
import { resultExpired } from './retention.js';
import { StreamCache } from './stream-cache.js';

export interface CommittedResult {
  view: RecordView;
  resultDigest: string;
  resultObject: string;
  meta: ResultMeta;
}

export type Loaded<T> = { ok: true; value: T } | { ok: false; reply: ErrorReply };

const OBJECT_SUFFIXES = ['meta', 'body', 'stdout', 'stderr'] as const;

/**
 * The committed result of an invocation, as `results.fetch` and
 * `results.part` serve it: only what RESULT_COMMITTED vouched for, only
 * within retention, and only bytes that still match their digests. Reads
 * only; a result that cannot be served is an error reply, never a re-run.
 */
@Injectable()
export class ResultReader {
  private readonly cache = new StreamCache();

  constructor(
    private readonly records: RecordReader,
    @Inject(DELIVERY_RESOURCES) private readonly res: JournalResources,
    @Inject(DELIVERY_POLICY) private readonly policy: PolicyStore,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  async committed(invocationId: string): Promise<Loaded<CommittedResult>> {
    const record = await this.records.load(invocationId);
    if (record === null) return { ok: false, reply: requestError(Code.NOT_FOUND) };
    const { view, history } = record;
    const result = view.result;
    if (result === null || result.result_object === undefined) {
      return { ok: false, reply: notCommitted(view) };
    }
    const commit = commitEventOf(history, result.result_digest);
    const retentionS = this.policy.current().results.retention_s;
    if (commit !== null && resultExpired(commit.at, retentionS, this.now())) {
      this.forget(invocationId, result.result_object);
      return { ok: false, reply: requestError(Code.RESULT_EXPIRED, undefined, undefined, { outcome: view.outcome }) };
    }
    const meta = await readResultMeta(this.res, result.result_object);
    if (meta === null || resultDigestOf(meta) !== result.result_digest) {
      this.log.error('result.unservable', { invocation_id: invocationId, reason: meta === null ? 'missing' : 'digest_mismatch' });
      return { ok: false, reply: storeFailed(view) };
    }
    return { ok: true, value: { view, resultDigest: result.result_digest, resultObject: result.result_object, meta } };
  }

  /** The bytes of one stream, checked against the metadata's size and digest; an error reply when they no longer match. */
  async stream(
    result: CommittedResult,
    name: ResultStreamName,
    info: ResultStreamMeta,
  ): Promise<Loaded<Uint8Array>> {
    const key = `${result.resultObject}.${name}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return { ok: true, value: cached };
    const bytes = await readResultStream(this.res, result.resultObject, name);
    if (bytes === null || bytes.byteLength !== info.bytes || digestOf(bytes) !== info.digest) {
      this.log.error('result.unservable', {
        invocation_id: result.view.invocation_id,
        stream: name,
        reason: bytes === null ? 'stream_missing' : 'stream_mismatch',
      });
      return { ok: false, reply: storeFailed(result.view) };
    }
    this.cache.set(key, bytes);
    return { ok: true, value: bytes };
  }

  /** Past retention the bytes may go; the journal keeps the digest. Best effort: a later fetch is RESULT_EXPIRED anyway. */
  private forget(invocationId: string, resultObject: string): void {
    this.cache.dropPrefix(`${resultObject}.`);
    const store = this.res.objects.results;
    void Promise.all(
      OBJECT_SUFFIXES.map((suffix) =>
        store.info(`${resultObject}.${suffix}`).then((info) =>
          info === null || info.deleted ? null : store.delete(`${resultObject}.${suffix}`),
        ),
      ),
    ).catch((err: unknown) => this.log.error('result.expire_failed', { invocation_id: invocationId, error: errorName(err) }));
  }
}
