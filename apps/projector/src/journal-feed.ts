import { DeliverPolicy, type ConsumerMessages } from '@nats-io/jetstream';
import type { JournalResources } from '@postern/journal';
import type { RawJournalMessage } from './event-decoder.js';

/** Messages handed over together; the projection writes each batch in one transaction. */
const MAX_BATCH = 256;

export type BatchHandler = (messages: RawJournalMessage[]) => Promise<void>;

/**
 * Raw, in-order access to the journal stream, in batches. The projector
 * reads raw messages with their subjects (the journal library's readers hand
 * over decoded events one at a time and skip what does not decode) because a
 * message that is not an event must become an anomaly, in order, in the same
 * transaction as the checkpoint; and batches make a rebuild fast.
 */
export class JournalFeed {
  constructor(private readonly res: Pick<JournalResources, 'js' | 'jsm' | 'names'>) {}

  /** The stream's last sequence now (0 when it is empty). */
  async lastSeq(): Promise<number> {
    const info = await this.res.jsm.streams.info(this.res.names.stream);
    return info.state.last_seq;
  }

  /** Delivers every message from `fromSeq` on, in stream order, one batch at a time, until `signal` aborts. */
  follow(fromSeq: number, onBatch: BatchHandler, signal: AbortSignal): Promise<void> {
    return this.read(fromSeq, Number.POSITIVE_INFINITY, onBatch, signal);
  }

  /** Delivers the messages `fromSeq..toSeq` and returns; nothing to do when `toSeq < fromSeq`. */
  catchUp(fromSeq: number, toSeq: number, onBatch: BatchHandler, signal?: AbortSignal): Promise<void> {
    if (toSeq < fromSeq) return Promise.resolve();
    return this.read(fromSeq, toSeq, onBatch, signal);
  }

  private async read(fromSeq: number, toSeq: number, onBatch: BatchHandler, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    const consumer = await this.res.js.consumers.get(this.res.names.stream, {
      filter_subjects: this.res.names.eventSubjects,
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: Math.max(1, fromSeq),
    });
    const messages: ConsumerMessages = await consumer.consume({ max_messages: MAX_BATCH });
    const stop = (): void => {
      void messages.close();
    };
    signal?.addEventListener('abort', stop, { once: true });
    let batch: RawJournalMessage[] = [];
    try {
      for await (const m of messages) {
        if (m.seq > toSeq) break;
        batch.push({ seq: m.seq, subject: m.subject, data: m.data });
        const done = m.seq >= toSeq;
        if (done || batch.length >= MAX_BATCH || m.info.pending === 0) {
          const ready = batch;
          batch = [];
          if (signal?.aborted) break;
          await onBatch(ready);
        }
        if (done || signal?.aborted) break;
      }
    } finally {
      signal?.removeEventListener('abort', stop);
      await messages.close().catch(() => undefined);
    }
  }
}
