import type { EventType, EvidenceSource } from '@postern/contract';
import type { EventDraft } from '@postern/journal';
import type { AttemptJournal } from './attempt-journal.js';
import type { AttemptLease } from './attempt-lease.js';
import type { DispatcherDeps } from './dispatcher-deps.js';
import type { FaultPoint } from './fault-point.js';
import type { InvocationPlan } from './invocation-plan.js';

/** What the dispatch side of an attempt hands over once DISPATCH_STARTED is durable. */
export interface ExchangeContext {
  deps: DispatcherDeps;
  plan: Extract<InvocationPlan, { kind: 'dispatch' }>;
  invocationId: string;
  lease: AttemptLease;
  journal: AttemptJournal;
  /** The plaintext, owned (and zeroed) by the attempt. */
  secret: Uint8Array;
  forms: readonly string[];
  draft(type: EventType, data: Record<string, unknown>, source?: EvidenceSource): EventDraft;
  fault(point: FaultPoint): Promise<void>;
}
