import { Inject, Injectable } from '@nestjs/common';
import { toRecordView, type RecordView, type StoredEvent } from '@postern/contract';
import type { Journal } from '@postern/journal';
import { DELIVERY_CLOCK, DELIVERY_JOURNAL, type Clock } from './delivery.constants.js';
import { foldHistory, type FoldedHistory } from './result-history.js';

export interface LoadedRecord {
  history: StoredEvent[];
  folded: FoldedHistory;
  view: RecordView;
}

/** Reads an invocation's journal and folds it into what the broker says about it. */
@Injectable()
export class RecordReader {
  constructor(
    @Inject(DELIVERY_JOURNAL) private readonly journal: Journal,
    @Inject(DELIVERY_CLOCK) private readonly now: Clock,
  ) {}

  /** null when the journal holds nothing for this id. */
  async load(invocationId: string): Promise<LoadedRecord | null> {
    const history = await this.journal.read(invocationId);
    if (history.length === 0) return null;
    const folded = foldHistory(invocationId, history);
    return { history, folded, view: toRecordView(folded.state, this.now()) };
  }
}
