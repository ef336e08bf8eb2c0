import {
  AckPolicy,
  DeliverPolicy,
  JetStreamApiCodes,
  JetStreamApiError,
  ReplayPolicy,
  type ConsumerConfig,
  type ConsumerInfo,
  type JsMsg,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { EventType, StoredEvent } from '@postern/contract';
import type { JournalResources } from './ensure-journal.js';
import { JournalDecodeError, JournalUnavailableError } from './errors.js';
import { decodeEvent, EVENT_TYPE_HEADER } from './event-codec.js';

/** `{ nak_delay_ms }`: hand the message back, to come again no sooner than that (a lease still held elsewhere). */
export type HandleVerdict = 'ack' | 'nak' | 'term' | { nak_delay_ms: number };

export interface DurableConsumerOptions {
  /** Role name; the consumer is `<prefix>_<durable>`, shared by every process using the same role. */
  durable: string;
  /** Default: every event subject of the prefix. */
  filterSubject?: string;
  /** Only these types reach `handle`; others are acked and skipped. */
  eventTypes?: readonly EventType[];
  handle: (ev: StoredEvent) => Promise<HandleVerdict>;
  /** Default 30000 ms; a running handler keeps its message with progress acks. */
  ackWaitMs?: number;
  /** Default unlimited (-1). */
  maxDeliver?: number;
  /** Delay before redelivery after handle throws (default 1000 ms). */
  errorDelayMs?: number;
  /** Messages pulled ahead per process (default 1, so a slow process does not sit on work others could do). */
  prefetch?: number;
  /** Where a newly created consumer starts (default: the whole journal). */
  deliverNew?: boolean;
  onInvalid?: (err: JournalDecodeError) => void;
  onError?: (err: unknown, ev: StoredEvent) => void;
}

export interface DurableConsumer {
  name: string;
  stop(): Promise<void>;
}

const FETCH_EXPIRES_MS = 5_000;

async function ensureConsumer(res: JournalResources, name: string, opts: DurableConsumerOptions): Promise<void> {
  const stream = res.names.stream;
  const want = {
    ack_wait: nanos(opts.ackWaitMs ?? 30_000),
    max_deliver: opts.maxDeliver ?? -1,
    filter_subject: opts.filterSubject ?? res.names.eventSubjects,
  };
  let info: ConsumerInfo | null = null;
  try {
    info = await res.jsm.consumers.info(stream, name);
  } catch (err) {
    if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.ConsumerNotFound)) throw err;
  }
  if (info === null) {
    const config: Partial<ConsumerConfig> = {
      durable_name: name,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: opts.deliverNew ? DeliverPolicy.New : DeliverPolicy.All,
      replay_policy: ReplayPolicy.Instant,
      ...want,
    };
    await res.jsm.consumers.add(stream, config as ConsumerConfig);
    return;
  }
  const c = info.config;
  if (c.ack_wait !== want.ack_wait || c.max_deliver !== want.max_deliver || c.filter_subject !== want.filter_subject) {
    await res.jsm.consumers.update(stream, name, want);
  }
}

function eventTypeOf(m: JsMsg): string | undefined {
  return m.headers?.get(EVENT_TYPE_HEADER) || undefined;
}

/**
 * A work-queue reader of the journal: processes that share the role split the
 * events between them, each event acked once handled. NATS 2.9 cannot filter
 * on a header, so other event types are acked and skipped here.
 */
export async function durableConsumer(res: JournalResources, opts: DurableConsumerOptions): Promise<DurableConsumer> {
  const name = res.names.consumer(opts.durable);
  const ackWaitMs = opts.ackWaitMs ?? 30_000;
  const errorDelayMs = opts.errorDelayMs ?? 1_000;
  const types = opts.eventTypes ? new Set<string>(opts.eventTypes) : null;
  try {
    await ensureConsumer(res, name, opts);
  } catch (err) {
    throw new JournalUnavailableError(`could not set up consumer ${name}`, { cause: err });
  }
  const consumer = await res.js.consumers.get(res.names.stream, name);
  const messages = await consumer.consume({ max_messages: opts.prefetch ?? 1, expires: FETCH_EXPIRES_MS });
  let stopping = false;

  const handleOne = async (m: JsMsg): Promise<void> => {
    let ev: StoredEvent;
    try {
      ev = decodeEvent(m.data, m.seq);
    } catch (err) {
      if (err instanceof JournalDecodeError) opts.onInvalid?.(err);
      m.term('not a journal event');
      return;
    }
    const type = eventTypeOf(m) ?? ev.type;
    if (types !== null && !types.has(type)) {
      m.ack();
      return;
    }
    // Keeps the message ours while the handler runs longer than ack_wait.
    const progress = setInterval(() => m.working(), Math.max(100, Math.floor(ackWaitMs / 2)));
    try {
      const verdict = await opts.handle(ev);
      if (typeof verdict === 'object') {
        m.nak(Math.max(0, Math.floor(verdict.nak_delay_ms)));
        return;
      }
      switch (verdict) {
        case 'ack':
          m.ack();
          break;
        case 'nak':
          m.nak();
          break;
        case 'term':
          m.term();
          break;
        default: {
          const never: never = verdict;
          throw new Error(`unknown verdict ${String(never)}`);
        }
      }
    } catch (err) {
      opts.onError?.(err, ev);
      m.nak(errorDelayMs);
    } finally {
      clearInterval(progress);
    }
  };

  const loop = (async () => {
    for await (const m of messages) {
      if (stopping) {
        // Pulled after stop: hand it straight back to the other processes.
        m.nak();
        continue;
      }
      await handleOne(m);
    }
  })();
  loop.catch(() => undefined);

  return {
    name,
    async stop() {
      if (stopping) return;
      stopping = true;
      await messages.close();
      await loop.catch(() => undefined);
    },
  };
}
