import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply, type RecordView } from '@postern/contract';
import { InvalidNameError, type JournalResources } from '@postern/journal';
import type { ServiceLog } from '@postern/service';
import { DELIVERY_CLOCK, DELIVERY_LOG, DELIVERY_RESOURCES, DELIVERY_TUNING, type Clock, type DeliveryTuning } from './delivery.constants.js';
import { readAwaitRequest } from './delivery-request.js';
import { EventSignal } from './event-signal.js';
import { RecordReader } from './record-reader.js';
import { awaitIsOver } from './result-history.js';

/**
 * `P.v1.actions.await`: the RecordView once the invocation is resolved (and a
 * result the remote gave is committed or reported as not stored), else the
 * current RecordView when `timeout_ms` passes. It only reads: waiting never
 * changes the invocation.
 */
@Injectable()
export class AwaitAction {
  private readonly waiting = new Set<EventSignal>();
  private stopping = false;

  constructor(
    private readonly records: RecordReader,
    @Inject(DELIVERY_RESOURCES) private readonly res: JournalResources,
    @Inject(DELIVERY_TUNING) private readonly tuning: DeliveryTuning,
    @Inject(DELIVERY_LOG) private readonly log: ServiceLog,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  async run(input: unknown): Promise<RecordView | ErrorReply> {
    const request = readAwaitRequest(input);
    if (!request.ok) {
      this.log.info('await.refused', { code: Code.BAD_REQUEST });
      return requestError(
        Code.BAD_REQUEST,
        'The request must be a JSON object with a string invocation_id and an optional non-negative integer timeout_ms.',
        request.field,
      );
    }
    const { invocationId, timeoutMs } = request.value;
    const waitMs = Math.min(timeoutMs ?? this.tuning.defaultAwaitMs, this.tuning.maxAwaitMs);
    const deadline = performance.now() + waitMs;
    const subject = this.subjectOf(invocationId);
    // Not a subject token, so no invocation can have this id.
    if (subject === null) return requestError(Code.NOT_FOUND);
    let signal: EventSignal | null = null;
    try {
      signal = await EventSignal.open(this.res.nc, subject);
      this.waiting.add(signal);
      // Each round is one read; rounds end on an event, a poll tick or the deadline.
      const maxRounds = Math.ceil(waitMs / this.tuning.pollMs) + 10_000;
      for (let round = 0; ; round++) {
        const record = await this.records.load(invocationId);
        if (record === null) return requestError(Code.NOT_FOUND);
        const remaining = deadline - performance.now();
        if (awaitIsOver(record.history, record.folded, this.now()) || remaining <= 0 || this.stopping || round >= maxRounds) {
          return record.view;
        }
        await signal.wait(Math.min(remaining, this.tuning.pollMs));
      }
    } finally {
      if (signal !== null) {
        this.waiting.delete(signal);
        signal.close();
      }
    }
  }

  /** Answers every open wait with the current record, so callers are not left hanging by a shutdown. */
  stop(): void {
    this.stopping = true;
    for (const signal of this.waiting) signal.wake();
  }

  private subjectOf(invocationId: string): string | null {
    try {
      return this.res.names.eventSubject(invocationId);
    } catch (err) {
      if (err instanceof InvalidNameError) return null;
      throw err;
    }
  }
}
