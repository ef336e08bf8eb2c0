import { evolve, initialState, toRecordView, type InvocationState, type StoredEvent } from '@postern/contract';
import { ReadModelError } from './errors.js';
import type { MalformedEvent } from './event-decoder.js';
import type { AnomalyRow, EventRow, InvocationRow } from './read-model.entities.js';

/** What one event does to the read model; the caller writes it in one transaction with the checkpoint. */
export type ProjectionStep =
  | { kind: 'applied'; invocation: InvocationRow; event: EventRow }
  | { kind: 'anomaly'; anomaly: Omit<AnomalyRow, 'observed_at'> };

function timeOf(at: string): number | null {
  const ms = Date.parse(at);
  return Number.isFinite(ms) ? ms : null;
}

/** The folded state kept in a row. */
export function stateOf(row: InvocationRow): InvocationState {
  try {
    return JSON.parse(row.state) as InvocationState;
  } catch (err) {
    throw new ReadModelError(`the stored state of ${row.invocation_id} is not JSON`, { cause: err });
  }
}

/**
 * The columns queries filter on, from the folded state. They are computed at
 * the event's own time so that a rebuild yields the same rows; the clock only
 * matters for `retry`, which is computed again when a record is read.
 */
export function summarize(state: InvocationState, atMs: number) {
  const view = toRecordView(state, atMs);
  return {
    client_request_id: view.client_request_id,
    status: view.status,
    outcome: view.outcome,
    // Where the broker stopped: the error's phase, else the phase the
    // invocation has reached (pending, or finished without an error).
    phase: view.error?.phase ?? state.phase,
    code: view.error?.code ?? null,
  };
}

/**
 * Folds one event into its invocation's row. An event that `evolve` refuses
 * becomes an anomaly and leaves the invocation exactly as it was.
 */
export function projectEvent(current: InvocationRow | null, event: StoredEvent, body: string): ProjectionStep {
  const state = current ? stateOf(current) : initialState(event.invocation_id);
  const result = evolve(state, event);
  if (!result.ok) {
    return {
      kind: 'anomaly',
      anomaly: {
        seq: event.seq,
        invocation_id: event.invocation_id,
        type: event.type,
        reason: result.anomaly.reason,
        message: result.anomaly.message,
        body,
      },
    };
  }
  const atMs = timeOf(event.at);
  const previousMs = current ? timeOf(current.updated_at) : null;
  const latency = atMs !== null && previousMs !== null ? Math.max(0, atMs - previousMs) : null;
  return {
    kind: 'applied',
    invocation: {
      invocation_id: event.invocation_id,
      ...summarize(result.state, atMs ?? 0),
      first_seq: current?.first_seq ?? event.seq,
      last_seq: event.seq,
      events: (current?.events ?? 0) + 1,
      created_at: current?.created_at ?? event.at,
      updated_at: event.at,
      state: JSON.stringify(result.state),
    },
    event: {
      seq: event.seq,
      invocation_id: event.invocation_id,
      n: event.n,
      type: event.type,
      at: event.at,
      latency_ms: latency,
      body,
    },
  };
}

/** A message that is not an event at all is kept as an anomaly too. */
export function malformedStep(m: MalformedEvent): ProjectionStep {
  return {
    kind: 'anomaly',
    anomaly: { seq: m.seq, invocation_id: m.invocation_id, type: m.type, reason: m.reason, message: m.message, body: m.body },
  };
}
