import { DeliverPolicy, type Consumer, type OrderedConsumerOptions } from '@nats-io/jetstream';
import type { StoredEvent } from '@postern/contract';
import type { JournalResources } from './ensure-journal.js';
import { JournalDecodeError, JournalUnavailableError } from './errors.js';
import { decodeEvent } from './event-codec.js';

export interface ReadStreamOptions {
  /** First stream sequence to deliver (1 or less: from the beginning). */
  fromSeq: number;
  onEvent: (ev: StoredEvent) => Promise<void>;
  /** A message on an event subject that is not an event; the reader skips it after reporting. */
  onInvalid?: (err: JournalDecodeError) => void;
  signal?: AbortSignal;
}

export interface StreamReader {
  stop(): Promise<void>;
  /** Settles when the reader stops; rejects with the error of a failing onEvent. */
  done: Promise<void>;
}

export interface ReadRangeOptions {
  fromSeq: number;
  /** Last sequence to deliver; default the stream's last sequence when the call starts. */
  toSeq?: number;
  onEvent: (ev: StoredEvent) => Promise<void>;
  onProgress?: (seq: number, lastSeq: number) => void;
  onInvalid?: (err: JournalDecodeError) => void;
  /** Gives up when no message arrives for this long (default 10000 ms). */
  idleTimeoutMs?: number;
}

function orderedOptions(res: JournalResources, fromSeq: number): Partial<OrderedConsumerOptions> {
  const base = { filter_subjects: res.names.eventSubjects };
  return fromSeq <= 1
    ? { ...base, deliver_policy: DeliverPolicy.All }
    : { ...base, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: fromSeq };
}

function decodeOrReport(data: Uint8Array, seq: number, onInvalid?: (err: JournalDecodeError) => void): StoredEvent | null {
  try {
    return decodeEvent(data, seq);
  } catch (err) {
    if (err instanceof JournalDecodeError) {
      onInvalid?.(err);
      return null;
    }
    throw err;
  }
}

/**
 * Follows the whole journal from a sequence, in stream order, one event at a
 * time: the next event is not handed over before onEvent settles.
 */
export async function readStream(res: JournalResources, opts: ReadStreamOptions): Promise<StreamReader> {
  let consumer: Consumer;
  try {
    consumer = await res.js.consumers.get(res.names.stream, orderedOptions(res, opts.fromSeq));
  } catch (err) {
    throw new JournalUnavailableError('could not open a journal reader', { cause: err });
  }
  const messages = await consumer.consume({ max_messages: 256 });
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await messages.close();
  };
  const onAbort = (): void => void stop();
  if (opts.signal?.aborted) await stop();
  opts.signal?.addEventListener('abort', onAbort, { once: true });

  const done = (async () => {
    try {
      for await (const m of messages) {
        if (stopping) break;
        const ev = decodeOrReport(m.data, m.seq, opts.onInvalid);
        if (ev !== null) await opts.onEvent(ev);
      }
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
      if (!stopping) {
        stopping = true;
        await messages.close().catch(() => undefined);
      }
    }
  })();
  // Callers that only stop() must not see an unhandled rejection.
  done.catch(() => undefined);
  return {
    async stop() {
      await stop();
      await done.catch(() => undefined);
    },
    done,
  };
}

/**
 * Replays a bounded range of the journal and resolves once `toSeq` (by default
 * the last sequence when the call started) has been handed to onEvent.
 * Returns the last sequence delivered (fromSeq - 1 when nothing was).
 */
export async function readRange(res: JournalResources, opts: ReadRangeOptions): Promise<number> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? 10_000;
  let toSeq = opts.toSeq;
  if (toSeq === undefined) {
    try {
      toSeq = (await res.jsm.streams.info(res.names.stream)).state.last_seq;
    } catch (err) {
      throw new JournalUnavailableError('could not read the journal stream state', { cause: err });
    }
  }
  let delivered = Math.max(0, opts.fromSeq - 1);
  if (toSeq < opts.fromSeq) return delivered;

  let consumer: Consumer;
  try {
    consumer = await res.js.consumers.get(res.names.stream, orderedOptions(res, opts.fromSeq));
  } catch (err) {
    throw new JournalUnavailableError('could not open a journal reader', { cause: err });
  }
  try {
    while (delivered < toSeq) {
      const batch = await consumer.fetch({ max_messages: 256, expires: idleTimeoutMs });
      let got = 0;
      let caughtUp = false;
      for await (const m of batch) {
        got++;
        if (m.seq > toSeq) {
          caughtUp = true;
          break;
        }
        const ev = decodeOrReport(m.data, m.seq, opts.onInvalid);
        if (ev !== null) await opts.onEvent(ev);
        delivered = m.seq;
        opts.onProgress?.(m.seq, toSeq);
        // Pending 0 means nothing more exists now: toSeq was not in the stream.
        if (m.seq >= toSeq || m.info.pending === 0) {
          caughtUp = true;
          break;
        }
      }
      if (caughtUp) break;
      if (got === 0) {
        throw new JournalUnavailableError(`journal replay stalled at seq ${delivered} (target ${toSeq})`);
      }
    }
    return delivered;
  } finally {
    await consumer.delete().catch(() => undefined);
  }
}
