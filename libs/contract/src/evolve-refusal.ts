import type { AnomalyReason, Anomaly } from './anomaly.js';

/** The `data` of a journal event, read field by field by the fold. */
export type EventData = Record<string, unknown>;

/**
 * Thrown inside the fold and caught by `evolve`, so a check deep in a
 * handler can stop the event without every caller threading a result.
 */
export class Refused {
  constructor(readonly anomaly: Anomaly) {}
}

export function refuse(reason: AnomalyReason, message: string): never {
  throw new Refused({ reason, message });
}
