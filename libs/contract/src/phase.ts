/** Where the broker stopped (CONTRACT.md section 4). Closed: extend only by adding. */
export const Phase = {
  validation: 'validation',
  credential_injection: 'credential_injection',
  connection_setup: 'connection_setup',
  remote_execution: 'remote_execution',
  result_delivery: 'result_delivery',
} as const;
export type Phase = (typeof Phase)[keyof typeof Phase];
export const PHASES: readonly Phase[] = Object.values(Phase);
