import {
  EvidenceSource,
  ServiceName,
  type EventType,
  type JournalEvent,
  type StoredEvent,
} from '@postern/contract';
import type { EventDraft } from '@postern/journal';

/**
 * An event the intake writes. Every intake fact is something the broker
 * itself observed (nothing came from the remote), and the contract's source
 * enum has no broker value, so it is `transport_observed`. Before dispatch
 * there is no attempt and no lease: both are 0.
 */
export function intakeDraft(type: EventType, at: string, data: Record<string, unknown>): EventDraft {
  return {
    type,
    attempt: 0,
    generation: 0,
    at,
    source: EvidenceSource.transport_observed,
    service: ServiceName.intake,
    data,
  };
}

export function intakeEvent(
  type: EventType,
  invocationId: string,
  n: number,
  at: string,
  data: Record<string, unknown>,
): JournalEvent {
  return { ...intakeDraft(type, at, data), invocation_id: invocationId, n };
}

export function lastSeqOf(history: readonly StoredEvent[]): number {
  return history.length === 0 ? 0 : (history[history.length - 1] as StoredEvent).seq;
}
