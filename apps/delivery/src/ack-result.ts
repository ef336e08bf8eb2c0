import { Inject, Injectable } from '@nestjs/common';
import {
  Code,
  EventType,
  Phase,
  requestError,
  toRecordView,
  type ErrorReply,
  type RecordView,
  type StoredEvent,
} from '@postern/contract';
import type { Journal } from '@postern/journal';
import type { ServiceLog } from '@postern/service';
import { handOverDraft } from './delivery-draft.js';
import { DELIVERY_CLOCK, DELIVERY_JOURNAL, DELIVERY_LOG, type Clock } from './delivery.constants.js';
import { DeliveryBusyError } from './errors.js';
import { readAckRequest } from './delivery-request.js';
import { RecordReader } from './record-reader.js';
import { notCommitted } from './result-errors.js';
import { commitEventOf, deliveredEventOf, foldHistory } from './result-history.js';

/** Appends that lost to another writer are re-decided from a fresh read, this many times. */
const MAX_ROUNDS = 5;

/**
 * `P.v1.results.ack`: the caller says it holds the result with this digest.
 * RESULT_DELIVERED is appended once; a repeated ack answers the same record,
 * and a digest that is not the committed one changes nothing.
 */
@Injectable()
export class AckResult {
  constructor(
    private readonly records: RecordReader,
    @Inject(DELIVERY_JOURNAL) private readonly journal: Journal,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  async run(input: unknown): Promise<RecordView | ErrorReply> {
    const request = readAckRequest(input);
    if (!request.ok) {
      this.log.info('ack.refused', { code: Code.BAD_REQUEST });
      return requestError(
        Code.BAD_REQUEST,
        'The request must be a JSON object with a string invocation_id and result_digest.',
        request.field,
      );
    }
    const { invocationId, resultDigest } = request.value;
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      const record = await this.records.load(invocationId);
      if (record === null) return requestError(Code.NOT_FOUND);
      const { view, history } = record;
      if (view.result === null) return notCommitted(view);
      if (view.result.result_digest !== resultDigest) {
        this.log.info('ack.refused', { invocation_id: invocationId, code: Code.DIGEST_MISMATCH });
        return requestError(Code.DIGEST_MISMATCH, undefined, 'result_digest', {
          phase: Phase.result_delivery,
          outcome: view.outcome,
        });
      }
      if (deliveredEventOf(history, resultDigest) !== null) return view;
      const commit = commitEventOf(history, resultDigest);
      const draft = handOverDraft(EventType.RESULT_DELIVERED, commit, this.now(), { result_digest: resultDigest });
      const lastSeq = history[history.length - 1]!.seq;
      const appended = await this.journal.append({ ...draft, invocation_id: invocationId, n: history.length + 1 }, lastSeq);
      if (appended.status === 'lost') continue;
      this.log.info('result.delivered', { invocation_id: invocationId, seq: appended.seq });
      const stored: StoredEvent = { ...draft, invocation_id: invocationId, n: history.length + 1, seq: appended.seq };
      return toRecordView(foldHistory(invocationId, [...history, stored]).state, this.now());
    }
    throw new DeliveryBusyError(`ack of ${invocationId} kept losing to other writers`);
  }
}
