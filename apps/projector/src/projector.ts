import type { EntityManager } from '@mikro-orm/core';
import { DbKind } from './db-target.js';
import type { RawJournalMessage } from './event-decoder.js';
import type { JournalFeed } from './journal-feed.js';
import { applyBatch, readCheckpoint, type BatchResult } from './projection-store.js';
import { AnomalyEntity, EventEntity, InvocationEntity } from './read-model.entities.js';
import type { ReadModel } from './read-model.js';

/** The reply to a replay request. */
export interface ReplaySummary {
  events: number;
  invocations: number;
  anomalies: number;
  last_seq: number;
}

export type ReplayProgress = (seq: number, lastSeq: number) => void;

export interface ProjectorLogger {
  error(message: string, err?: unknown): void;
}

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * Keeps the read model in step with the journal: a live reader from the
 * checkpoint on, and a replay that rebuilds everything from sequence 1.
 */
export class Projector {
  private live: { abort: AbortController; done: Promise<void> } | null = null;
  private exclusive: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly model: ReadModel,
    private readonly feed: JournalFeed,
    private readonly logger: ProjectorLogger = { error: () => undefined },
  ) {}

  /** Applies messages in order in one transaction with the checkpoint. */
  apply(messages: readonly RawJournalMessage[]): Promise<BatchResult> {
    const lockCheckpoint = this.model.kind === DbKind.postgresql;
    return this.model.use((em) => applyBatch(em, messages, { lockCheckpoint }));
  }

  checkpoint(): Promise<number> {
    return this.model.use((em) => readCheckpoint(em));
  }

  get running(): boolean {
    return this.live !== null;
  }

  /** Starts following the journal from the checkpoint + 1 (from 1 for an empty read model). */
  start(): void {
    if (this.live) return;
    const abort = new AbortController();
    this.live = { abort, done: this.follow(abort.signal) };
  }

  /** Stops the live reader once the batch in hand is written. */
  async stop(): Promise<void> {
    const live = this.live;
    if (!live) return;
    this.live = null;
    live.abort.abort();
    await live.done;
  }

  private async follow(signal: AbortSignal): Promise<void> {
    let wait = RETRY_MIN_MS;
    while (!signal.aborted) {
      try {
        const from = (await this.checkpoint()) + 1;
        await this.feed.follow(
          from,
          async (batch) => {
            await this.apply(batch);
            wait = RETRY_MIN_MS;
          },
          signal,
        );
      } catch (err) {
        if (signal.aborted) break;
        this.logger.error('projection failed; resuming from the checkpoint', err);
        wait = Math.min(wait * 2, RETRY_MAX_MS);
      }
      // The reader only returns on its own when the consumer went away: start again from the checkpoint.
      await sleep(wait, signal);
    }
  }

  /**
   * Rebuilds the read model from sequence 1 up to the stream's last sequence
   * at the start of the replay, then resumes the live reader. Replays run one
   * at a time.
   */
  replay(onProgress?: ReplayProgress): Promise<ReplaySummary> {
    const run = this.exclusive.then(() => this.rebuild(onProgress));
    this.exclusive = run.catch(() => undefined);
    return run;
  }

  private async rebuild(onProgress?: ReplayProgress): Promise<ReplaySummary> {
    const wasRunning = this.running;
    await this.stop();
    try {
      await this.model.reset();
      const lastSeq = await this.feed.lastSeq();
      await this.feed.catchUp(1, lastSeq, async (batch) => {
        await this.apply(batch);
        const seq = batch[batch.length - 1]?.seq;
        if (seq !== undefined) onProgress?.(seq, lastSeq);
      });
      return await this.summary();
    } finally {
      if (wasRunning) this.start();
    }
  }

  /** Row counts and the checkpoint. */
  summary(): Promise<ReplaySummary> {
    return this.model.use(async (em: EntityManager) => ({
      events: await em.count(EventEntity, {}),
      invocations: await em.count(InvocationEntity, {}),
      anomalies: await em.count(AnomalyEntity, {}),
      last_seq: await readCheckpoint(em),
    }));
  }
}
