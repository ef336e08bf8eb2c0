import { EvidenceSource, ServiceName, type EventType } from '@postern/contract';
import type { EventDraft } from '@postern/journal';

/**
 * An event the credential service writes. It is the broker's own
 * observation, and before dispatch there is no attempt and no lease: both 0.
 */
export function credentialDraft(type: EventType, at: string, data: Record<string, unknown>): EventDraft {
  return { type, attempt: 0, generation: 0, at, source: EvidenceSource.transport_observed, service: ServiceName.credential, data };
}
