import { EvidenceSource, ServiceName, type EventType } from '@postern/contract';
import type { EventDraft } from '@postern/journal';

/**
 * An event the dispatcher writes for one attempt under one lease generation.
 * What the remote itself said (a complete response) is `remote_response`;
 * everything else is what the broker observed on its side of the socket.
 */
export function dispatcherDraft(
  type: EventType,
  attempt: number,
  generation: number,
  nowMs: number,
  data: Record<string, unknown>,
  source: EvidenceSource = EvidenceSource.transport_observed,
): EventDraft {
  return {
    type,
    attempt,
    generation,
    at: new Date(nowMs).toISOString(),
    source,
    service: ServiceName.dispatcher,
    data,
  };
}

/** The journal writer of one lease generation: `Nats-Msg-Id` tells attempts and workers apart. */
export function writerName(instanceId: string, generation: number): string {
  return `dispatcher-${instanceId}-g${generation}`;
}
