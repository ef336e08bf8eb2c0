import { EventType, ServiceName, type StoredEvent } from '@postern/contract';
import type { EventDraft, Journal } from '@postern/journal';

/** Decides the event from the history it will follow; null when it is no longer due. */
export type DraftBuilder = (history: readonly StoredEvent[]) => EventDraft | null;

const MAX_REBASES = 4;

/**
 * The journal of one invocation as one attempt writes it: every append is
 * conditional on the last event this attempt knows, so an append that loses
 * its place tells the attempt that someone else wrote in between.
 */
export class AttemptJournal {
  private known: StoredEvent[];

  constructor(
    private readonly journal: Journal,
    private readonly invocationId: string,
    history: readonly StoredEvent[],
  ) {
    this.known = [...history];
  }

  get history(): readonly StoredEvent[] {
    return this.known;
  }

  /**
   * True once the event is durable (or no longer due). Losing the place
   * stops the attempt, except when the only newcomers are the delivery
   * service settling an earlier attempt's result (a followed redirect's 3xx)
   * or, after dispatch, a caller's cancel: the remote result is still to be
   * recorded on top of them.
   */
  async append(build: DraftBuilder, afterDispatch: boolean): Promise<boolean> {
    for (let round = 0; round < MAX_REBASES; round++) {
      const draft = build(this.known);
      if (draft === null) return true;
      const last = this.known[this.known.length - 1];
      const event = { ...draft, invocation_id: this.invocationId, n: this.known.length + 1 };
      const result = await this.journal.append(event, last?.seq ?? 0);
      if (result.status === 'appended') {
        this.known.push({ ...event, seq: result.seq });
        return true;
      }
      const fresh = await this.journal.read(this.invocationId);
      const newcomers = fresh.slice(this.known.length);
      this.known = fresh;
      if (newcomers.length === 0 || !newcomers.every((e) => harmless(e, afterDispatch))) return false;
    }
    return false;
  }
}

/** Result settlements the delivery service writes about an earlier attempt's response. */
const SETTLEMENTS: ReadonlySet<string> = new Set([
  EventType.RESULT_COMMITTED,
  EventType.RESULT_DELIVERED,
]);

/** A newcomer that does not take the attempt's place: it decides nothing about this attempt. */
function harmless(e: StoredEvent, afterDispatch: boolean): boolean {
  if (afterDispatch && e.type === EventType.CALLER_CANCELLED) return true;
  return e.service === ServiceName.delivery && SETTLEMENTS.has(e.type);
}
