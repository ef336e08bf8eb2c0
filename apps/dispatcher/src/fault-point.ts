/**
 * Named points where the crash tests make the dispatcher die (SIGKILL), to
 * prove what the journal and the remote see when a worker vanishes there.
 * Inert unless `POSTERN_FAULT` names one.
 */
export const FaultPoint = {
  after_lease_acquired: 'after_lease_acquired',
  after_dispatch_started: 'after_dispatch_started',
  after_request_sent: 'after_request_sent',
  before_response_complete: 'before_response_complete',
} as const;
export type FaultPoint = (typeof FaultPoint)[keyof typeof FaultPoint];
export const FAULT_POINTS: readonly FaultPoint[] = Object.values(FaultPoint);

/**
 * Consulted at each point. `armed` lets the worker stop renewing its lease
 * first, so that a simulated crash in a test leaves the same traces as a
 * real one; `hit` does not return when the fault fires.
 */
export interface FaultSwitch {
  armed(point: FaultPoint): boolean;
  hit(point: FaultPoint): Promise<void>;
}

export const noFaults: FaultSwitch = { armed: () => false, hit: async () => undefined };

/** The process switch: dies at the configured point, with no chance to clean up. */
export function processFaultSwitch(configured: FaultPoint | null): FaultSwitch {
  if (configured === null) return noFaults;
  return {
    armed: (point) => point === configured,
    hit: async (point) => {
      if (point !== configured) return;
      process.kill(process.pid, 'SIGKILL');
      // SIGKILL is not delivered synchronously everywhere; never go on meanwhile.
      await new Promise<never>(() => undefined);
    },
  };
}
