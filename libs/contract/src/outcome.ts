/** What the broker can prove about the remote side (CONTRACT.md section 4). */
export const Outcome = {
  not_attempted: 'not_attempted',
  rejected: 'rejected',
  committed: 'committed',
  unknown: 'unknown',
} as const;
export type Outcome = (typeof Outcome)[keyof typeof Outcome];
export const OUTCOMES: readonly Outcome[] = Object.values(Outcome);
