import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  EventType,
  Phase,
  Retry,
  requestError,
  type ErrorReply,
  type Outcome,
} from '@postern/contract';
import type { Journal, JournalResources } from '@postern/journal';
import type { ServiceLog } from '@postern/service';
import { handOverDraft } from './delivery-draft.js';
import { DELIVERY_CLOCK, DELIVERY_JOURNAL, DELIVERY_LOG, DELIVERY_RESOURCES, type Clock } from './delivery.constants.js';
import { DeliveryBusyError } from './errors.js';
import { RecordReader } from './record-reader.js';
import { commitEventOf } from './result-history.js';

/** RESULT_DELIVERY_FAILED's `reason` when NATS cannot carry the reply to the caller. */
export const REPLY_EXCEEDS_MAX_PAYLOAD = 'reply_exceeds_max_payload';

/** Appends that lost to another writer are re-decided from a fresh read, this many times. */
const MAX_ROUNDS = 5;

/** The committed result a read is about to hand over. */
export interface HandedResult {
  invocationId: string;
  resultDigest: string;
  outcome: Outcome;
}

/**
 * The last step of `results.fetch` and `results.part`: the reply goes to the
 * caller over NATS. The NATS client refuses to publish a message larger than
 * the server's max_payload, and the caller would wait out its timeout hearing
 * nothing, so the reply is measured the way the client measures it before it
 * is handed over. A reply that cannot travel leaves the result stored and
 * committed; only its hand-over failed: RESULT_DELIVERY_FAILED is journaled
 * once per result, and the caller gets a small error that says so, with the
 * outcome kept and retry `fetch_result`.
 */
@Injectable()
export class ResultHandOver {
  constructor(
    private readonly records: RecordReader,
    @Inject(DELIVERY_JOURNAL) private readonly journal: Journal,
    @Inject(DELIVERY_RESOURCES) private readonly res: JournalResources,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  async reply<T extends object>(result: HandedResult, reply: T): Promise<T | ErrorReply> {
    const maxPayload = this.res.nc.info?.max_payload;
    // Exactly the bytes the plain-JSON serializer publishes: no headers on a reply that succeeded.
    const replyBytes = Buffer.byteLength(JSON.stringify(reply), 'utf8');
    if (maxPayload === undefined || replyBytes <= maxPayload) return reply;
    await this.recordFailure(result, replyBytes, maxPayload);
    return requestError(
      Code.RESULT_DELIVERY_FAILED,
      `The result is stored but could not be handed to the caller: its reply of ${replyBytes} bytes exceeds ` +
        `the NATS server's max_payload of ${maxPayload} bytes. Nothing was run again; raise max_payload to at ` +
        `least ${replyBytes} bytes and fetch the result again.`,
      undefined,
      { phase: Phase.result_delivery, outcome: result.outcome, retry: Retry.fetch_result },
    );
  }

  private async recordFailure(result: HandedResult, replyBytes: number, maxPayload: number): Promise<void> {
    const { invocationId, resultDigest } = result;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const record = await this.records.load(invocationId);
      if (record === null) return;
      const { history } = record;
      // One failed hand-over of a result is one fact, however often the caller asks.
      if (history.some((ev) => ev.type === EventType.RESULT_DELIVERY_FAILED && ev.data['result_digest'] === resultDigest)) return;
      const draft = handOverDraft(EventType.RESULT_DELIVERY_FAILED, commitEventOf(history, resultDigest), this.now(), {
        reason: REPLY_EXCEEDS_MAX_PAYLOAD,
        result_digest: resultDigest,
        reply_bytes: replyBytes,
        max_payload: maxPayload,
      });
      const n = history.length + 1;
      const appended = await this.journal.append({ ...draft, invocation_id: invocationId, n }, history[history.length - 1]!.seq);
      if (appended.status === 'lost') continue;
      // An operator must act (raise max_payload); the caller alone cannot fix it.
      this.log.error('result.delivery_failed', {
        invocation_id: invocationId,
        reason: REPLY_EXCEEDS_MAX_PAYLOAD,
        reply_bytes: replyBytes,
        max_payload: maxPayload,
        seq: appended.seq,
      });
      return;
    }
    throw new DeliveryBusyError(`the failed hand-over of ${invocationId} kept losing to other writers`);
  }

}
