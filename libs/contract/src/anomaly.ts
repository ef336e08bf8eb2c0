/**
 * Why `evolve` refused an event. The projector records these instead of
 * applying the event; the state stays as it was.
 */
export const AnomalyReason = {
  /** `n` is not the next place in the invocation (a gap or a repeat). */
  sequence_gap: 'sequence_gap',
  /** The event names another invocation. */
  wrong_invocation: 'wrong_invocation',
  /** The first event of an invocation must be ACTION_ACCEPTED. */
  not_accepted_first: 'not_accepted_first',
  /** The event's implied outcome contradicts what is already established. */
  outcome_regression: 'outcome_regression',
  /** A dispatch or a new attempt after the invocation was final. */
  after_final: 'after_final',
  /** The event names an attempt that does not fit (not dispatched, or reused). */
  attempt_mismatch: 'attempt_mismatch',
  /** The envelope or `data` lacks what the type needs. */
  malformed: 'malformed',
} as const;
export type AnomalyReason = (typeof AnomalyReason)[keyof typeof AnomalyReason];
export const ANOMALY_REASONS: readonly AnomalyReason[] = Object.values(AnomalyReason);

export interface Anomaly {
  reason: AnomalyReason;
  message: string;
}
