import { evolve, initialState, type InvocationState, type StoredEvent } from '@postern/contract';

/**
 * The state of a history. An event the fold refuses is left out: the
 * projector records such anomalies, and a decision is taken from what is
 * consistent.
 */
export function foldHistory(invocationId: string, history: readonly StoredEvent[]): InvocationState {
  let state = initialState(invocationId);
  for (const event of history) {
    const next = evolve(state, event);
    if (next.ok) state = next.state;
  }
  return state;
}
