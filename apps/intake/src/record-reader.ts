import { Inject, Injectable } from '@nestjs/common';
import { evolve, initialState, toRecordView, type RecordView, type StoredEvent } from '@postern/contract';
import type { Journal } from '@postern/journal';
import { INTAKE_JOURNAL } from './intake.constants.js';

/**
 * The RecordView of a history; the clock is read in the shell and passed in.
 * An event the fold refuses is left out here: the projector records such
 * anomalies, and an answer must still be given from what is consistent.
 */
export function viewOf(invocationId: string, history: readonly StoredEvent[], nowMs: number): RecordView {
  let state = initialState(invocationId);
  for (const event of history) {
    const next = evolve(state, event);
    if (next.ok) state = next.state;
  }
  return toRecordView(state, nowMs);
}

/** Reads an invocation's journal and folds it into what the broker says about it. */
@Injectable()
export class RecordReader {
  constructor(@Inject(INTAKE_JOURNAL) private readonly journal: Journal) {}

  history(invocationId: string): Promise<StoredEvent[]> {
    return this.journal.read(invocationId);
  }

  /** null when the journal holds nothing for this id. */
  async view(invocationId: string): Promise<RecordView | null> {
    const history = await this.journal.read(invocationId);
    return history.length === 0 ? null : viewOf(invocationId, history, Date.now());
  }
}
