import { JetStreamApiCodes, JetStreamApiError, type PubAck, type StoredMsg } from '@nats-io/jetstream';
import type { JournalEvent, StoredEvent } from '@postern/contract';
import type { JournalResources } from './ensure-journal.js';
import { AppendConflictError, JournalDecodeError, JournalUnavailableError } from './errors.js';
import { decodeEvent, encodeEvent, eventHeaders, MSG_ID_HEADER } from './event-codec.js';
import { InvalidNameError } from './names.js';
import { isUnavailable } from './unavailable.js';

export type AppendResult = { status: 'appended'; seq: number } | { status: 'lost'; winner: string | null };

export type AppendNextResult =
  | { status: 'appended'; event: StoredEvent; history: StoredEvent[] }
  | { status: 'lost' }
  | { status: 'skipped'; history: StoredEvent[] };

/** What a service builds as the next event; the journal fills in `n` and `invocation_id`. */
export type EventDraft = Omit<JournalEvent, 'n' | 'invocation_id'>;

export interface JournalOptions {
  /** How long to wait for a PubAck before settling by a read (default 5000 ms). */
  publishTimeoutMs?: number;
  /** Publications of one event before giving up with JournalUnavailableError (default 3). */
  maxTries?: number;
  /** Bound on one read() of an invocation (default 10000 ms). */
  readTimeoutMs?: number;
}

const READ_BATCH = 256;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isWrongLastSequence(err: unknown): boolean {
  return err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamWrongLastSequence;
}

/**
 * One writer's view of the journal. All events of an invocation live on one
 * subject and are appended with an expected last subject sequence, so at most
 * one writer wins each place `n`; a loser learns it and stops.
 */
export class Journal {
  private readonly publishTimeoutMs: number;
  private readonly maxTries: number;
  private readonly readTimeoutMs: number;

  constructor(
    private readonly res: JournalResources,
    readonly prefix: string,
    readonly writer: string,
    opts: JournalOptions = {},
  ) {
    if (res.names.prefix !== prefix) {
      throw new InvalidNameError(`journal resources are for prefix ${res.names.prefix}, not ${prefix}`);
    }
    // The writer ends up in Nats-Msg-Id; keep it to characters that read back unambiguously.
    if (!/^[A-Za-z0-9_.:-]{1,128}$/.test(writer)) {
      throw new InvalidNameError('writer must be 1..128 of [A-Za-z0-9_.:-]');
    }
    this.publishTimeoutMs = opts.publishTimeoutMs ?? 5_000;
    this.maxTries = opts.maxTries ?? 3;
    this.readTimeoutMs = opts.readTimeoutMs ?? 10_000;
  }

  msgId(invocationId: string, n: number): string {
    return `${invocationId}.${n}.${this.writer}`;
  }

  /** Every event of one invocation, in order, with stream sequences; [] when there is none. */
  async read(invocationId: string): Promise<StoredEvent[]> {
    let subject: string;
    try {
      subject = this.res.names.eventSubject(invocationId);
    } catch (err) {
      if (err instanceof InvalidNameError) return [];
      throw err;
    }
    const last = await this.lastOnSubject(subject);
    if (last === null) return [];
    return this.readSubjectUpTo(subject, last.seq);
  }

  /** The stream's last sequence (0 when empty), the target of a replay. */
  async lastSeq(): Promise<number> {
    try {
      const info = await this.res.jsm.streams.info(this.res.names.stream);
      return info.state.last_seq;
    } catch (err) {
      throw new JournalUnavailableError('could not read the journal stream state', { cause: err });
    }
  }

  /**
   * Appends `event` if the invocation's subject still ends at
   * `expectedLastSubjectSeq` (0: no event yet). A duplicate, a wrong last
   * sequence or a missing PubAck is settled by reading what the subject holds.
   */
  async append(event: JournalEvent, expectedLastSubjectSeq: number): Promise<AppendResult> {
    const subject = this.res.names.eventSubject(event.invocation_id);
    const msgID = this.msgId(event.invocation_id, event.n);
    const body = encodeEvent(event);
    let lastError: unknown;
    for (let attempt = 1; attempt <= this.maxTries; attempt++) {
      let ack: PubAck;
      try {
        ack = await this.res.js.publish(subject, body, {
          msgID,
          headers: eventHeaders(event),
          expect: { lastSubjectSequence: expectedLastSubjectSeq },
          timeout: this.publishTimeoutMs,
        });
      } catch (err) {
        if (isWrongLastSequence(err)) {
          return this.settleConflict(subject, msgID, err);
        }
        if (err instanceof JetStreamApiError && !isUnavailable(err)) {
          throw new AppendConflictError(`append of ${msgID} refused by the journal`, { cause: err });
        }
        // No answer: the event may or may not be stored. Look before re-publishing.
        lastError = err;
        const settled = await this.settleUnknown(subject, msgID, expectedLastSubjectSeq).catch((readErr: unknown) => {
          lastError = readErr;
          return null;
        });
        if (settled !== null) return settled;
        await sleep(Math.min(100 * 2 ** (attempt - 1), 1_000));
        continue;
      }
      if (ack.duplicate) {
        // Msg ids are unique per writer and place, so a duplicate is our own earlier publish.
        return this.settleDuplicate(msgID, ack.seq);
      }
      return { status: 'appended', seq: ack.seq };
    }
    throw new JournalUnavailableError(`append of ${msgID} unconfirmed after ${this.maxTries} tries`, {
      cause: lastError,
    });
  }

  /**
   * Reads the invocation, lets `build` decide the next event from its history
   * (null: nothing to do), and appends it as the next place.
   */
  async appendNext(invocationId: string, build: (history: StoredEvent[]) => EventDraft | null): Promise<AppendNextResult> {
    const history = await this.read(invocationId);
    const draft = build(history);
    if (draft === null) return { status: 'skipped', history };
    const event: JournalEvent = { ...draft, invocation_id: invocationId, n: history.length + 1 };
    const expected = history.length > 0 ? history[history.length - 1]!.seq : 0;
    const result = await this.append(event, expected);
    if (result.status === 'lost') return { status: 'lost' };
    const stored: StoredEvent = { ...event, seq: result.seq };
    return { status: 'appended', event: stored, history: [...history, stored] };
  }

  private async lastOnSubject(subject: string): Promise<StoredMsg | null> {
    try {
      return await this.res.jsm.streams.getMessage(this.res.names.stream, { last_by_subj: subject });
    } catch (err) {
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.NoMessageFound) return null;
      throw new JournalUnavailableError(`could not read the last event on ${subject}`, { cause: err });
    }
  }

  private async settleConflict(subject: string, msgID: string, cause: unknown): Promise<AppendResult> {
    const last = await this.lastOnSubject(subject);
    if (last === null) {
      throw new AppendConflictError(`expected sequence is ahead of the empty subject for ${msgID}`, { cause });
    }
    const lastId = last.header?.get(MSG_ID_HEADER) ?? '';
    if (lastId === msgID) return { status: 'appended', seq: last.seq };
    return { status: 'lost', winner: lastId === '' ? null : lastId };
  }

  private async settleDuplicate(msgID: string, seq: number): Promise<AppendResult> {
    let stored: StoredMsg | null;
    try {
      stored = await this.res.jsm.streams.getMessage(this.res.names.stream, { seq });
    } catch (err) {
      throw new JournalUnavailableError(`could not read back duplicate ${msgID} at seq ${seq}`, { cause: err });
    }
    if (stored?.header?.get(MSG_ID_HEADER) === msgID) return { status: 'appended', seq };
    throw new AppendConflictError(`duplicate ack for ${msgID} points at seq ${seq}, which holds another event`);
  }

  /** Returns null when nothing landed yet and a re-publish is safe. */
  private async settleUnknown(subject: string, msgID: string, expected: number): Promise<AppendResult | null> {
    const last = await this.lastOnSubject(subject);
    const lastSeq = last?.seq ?? 0;
    if (lastSeq === expected) return null;
    const lastId = last?.header?.get(MSG_ID_HEADER) ?? '';
    if (lastId === msgID) return { status: 'appended', seq: lastSeq };
    return { status: 'lost', winner: lastId === '' ? null : lastId };
  }

  private async readSubjectUpTo(subject: string, lastSeq: number): Promise<StoredEvent[]> {
    const deadline = Date.now() + this.readTimeoutMs;
    const events: StoredEvent[] = [];
    let consumer;
    try {
      consumer = await this.res.js.consumers.get(this.res.names.stream, { filter_subjects: subject });
    } catch (err) {
      throw new JournalUnavailableError(`could not open a reader on ${subject}`, { cause: err });
    }
    try {
      let seen = 0;
      while (seen < lastSeq) {
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new JournalUnavailableError(`read of ${subject} timed out`);
        const batch = await consumer.fetch({ max_messages: READ_BATCH, expires: Math.max(1_000, Math.min(remaining, 5_000)) });
        let got = 0;
        for await (const m of batch) {
          got++;
          seen = m.seq;
          if (m.seq <= lastSeq) events.push(decodeEvent(m.data, m.seq));
          if (m.seq >= lastSeq) break;
        }
        if (got === 0 && Date.now() >= deadline) throw new JournalUnavailableError(`read of ${subject} timed out`);
      }
      return events;
    } catch (err) {
      if (err instanceof JournalUnavailableError) throw err;
      if (err instanceof JournalDecodeError) throw err;
      throw new JournalUnavailableError(`could not read ${subject}`, { cause: err });
    } finally {
      await consumer.delete().catch(() => undefined);
    }
  }
}
