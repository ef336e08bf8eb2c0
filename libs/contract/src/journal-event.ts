import type { EventType } from './event-type.js';
import type { EvidenceSource } from './evidence-source.js';

/** Names of the services that write to the journal. */
export const ServiceName = {
  intake: 'intake',
  credential: 'credential',
  dispatcher: 'dispatcher',
  delivery: 'delivery',
  projector: 'projector',
  operator: 'operator',
} as const;
export type ServiceName = (typeof ServiceName)[keyof typeof ServiceName];

/**
 * One event on `P.v1.evt.<invocation_id>` (CONTRACT.md section 2). `n` is its
 * place within the invocation (1, 2, 3 ...); the stream sequence is the
 * global order and is not part of the body.
 */
export interface JournalEvent<T extends EventType = EventType> {
  type: T;
  invocation_id: string;
  n: number;
  attempt: number;
  generation: number;
  at: string;
  source: EvidenceSource;
  service: ServiceName | string;
  data: Record<string, unknown>;
}

/** An event as read back from the journal, with its stream sequence. */
export interface StoredEvent extends JournalEvent {
  seq: number;
}
