import { EvidenceSource, ServiceName, type EventType, type StoredEvent } from '@postern/contract';
import type { EventDraft } from '@postern/journal';

/**
 * An event about the hand-over of a committed result (RESULT_DELIVERED,
 * RESULT_DELIVERY_FAILED). It belongs to the attempt and generation of the
 * result's RESULT_COMMITTED, and the broker saw it itself: nothing came from
 * the remote.
 */
export function handOverDraft(type: EventType, commit: StoredEvent | null, atMs: number, data: Record<string, unknown>): EventDraft {
  return {
    type,
    attempt: commit?.attempt ?? 0,
    generation: commit?.generation ?? 0,
    at: new Date(atMs).toISOString(),
    source: EvidenceSource.transport_observed,
    service: ServiceName.delivery,
    data,
  };
}
