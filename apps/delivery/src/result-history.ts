import {
  autoRetryOf,
  Code,
  evolve,
  EventType,
  initialState,
  Status,
  toRecordView,
  type InvocationState,
  type RecordView,
  type StoredEvent,
} from '@postern/contract';

/**
 * What the delivery service reads out of one invocation's history. The
 * result-store failure is recorded as a second REMOTE_RESPONSE_COMPLETE of the
 * same attempt carrying the `result_store_failed` classification: that is the
 * event `evolve` folds into phase `result_delivery`, code RESULT_STORE_FAILED
 * and `intervention_required`, with the attempt's outcome kept.
 */
export interface FoldedHistory {
  state: InvocationState;
  /** Stream sequences of events the fold refused; they count for nothing here. */
  refused: ReadonlySet<number>;
}

export function foldHistory(invocationId: string, history: readonly StoredEvent[]): FoldedHistory {
  let state = initialState(invocationId);
  const refused = new Set<number>();
  for (const event of history) {
    const next = evolve(state, event);
    if (next.ok) state = next.state;
    else refused.add(event.seq);
  }
  return { state, refused };
}

/**
 * The RecordView of a history; the clock is read in the shell and passed in.
 * An event the fold refuses is left out: the projector records such
 * anomalies, and an answer must still be given from what is consistent.
 */
export function viewOf(invocationId: string, history: readonly StoredEvent[], nowMs: number): RecordView {
  return toRecordView(foldHistory(invocationId, history).state, nowMs);
}

export function isStoreFailure(ev: StoredEvent): boolean {
  return ev.type === EventType.REMOTE_RESPONSE_COMPLETE && ev.data['code'] === Code.RESULT_STORE_FAILED;
}

/**
 * A remote's complete response that the delivery service must vouch for (or
 * report as not stored). A refusal with nothing stored (an SSH channel or
 * exec the server refused) names no result object: there is nothing to vouch for.
 */
export function awaitsVerification(ev: StoredEvent): boolean {
  return ev.type === EventType.REMOTE_RESPONSE_COMPLETE && !isStoreFailure(ev) && resultObjectOf(ev) !== null;
}

export function resultObjectOf(ev: StoredEvent): string | null {
  const o = ev.data['result_object'];
  return typeof o === 'string' && o.length > 0 ? o : null;
}

export function responseDigestOf(ev: StoredEvent): string | null {
  const d = ev.data['response_digest'] ?? ev.data['result_digest'];
  return typeof d === 'string' && d.length > 0 ? d : null;
}

/** The event that settled `response` (its RESULT_COMMITTED or its store failure), or null. */
export function settlementOf(history: readonly StoredEvent[], response: StoredEvent): StoredEvent | null {
  const object = resultObjectOf(response);
  const digest = responseDigestOf(response);
  for (const ev of history) {
    if (ev.seq <= response.seq) continue;
    if (isStoreFailure(ev) && ev.attempt === response.attempt) return ev;
    if (
      ev.type === EventType.RESULT_COMMITTED &&
      object !== null &&
      ev.data['result_object'] === object &&
      ev.data['result_digest'] === digest
    ) {
      return ev;
    }
  }
  return null;
}

/** Every complete response the fold accepted has been committed or reported as not stored. */
export function resultsSettled(history: readonly StoredEvent[], refused: ReadonlySet<number>): boolean {
  return history.every((ev) => refused.has(ev.seq) || !awaitsVerification(ev) || settlementOf(history, ev) !== null);
}

/**
 * `actions.await` answers once the broker has said its last word for now: the
 * record is resolved, no automatic retry is still due under the policy, and a
 * result the remote gave is either committed or reported as not stored, so
 * the caller can fetch right away.
 */
export function awaitIsOver(history: readonly StoredEvent[], folded: FoldedHistory, now: number): boolean {
  return (
    folded.state.status === Status.resolved &&
    autoRetryOf(folded.state, now) === null &&
    resultsSettled(history, folded.refused)
  );
}

/** The RESULT_COMMITTED event of the record's current result. */
export function commitEventOf(history: readonly StoredEvent[], resultDigest: string): StoredEvent | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const ev = history[i]!;
    if (ev.type === EventType.RESULT_COMMITTED && ev.data['result_digest'] === resultDigest) return ev;
  }
  return null;
}

export function deliveredEventOf(history: readonly StoredEvent[], resultDigest: string): StoredEvent | null {
  return history.find((ev) => ev.type === EventType.RESULT_DELIVERED && ev.data['result_digest'] === resultDigest) ?? null;
}
