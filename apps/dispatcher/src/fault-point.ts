/**
 * Named points where the crash tests make the dispatcher die (SIGKILL), to
 * prove what the journal and the remote see when a worker vanishes there, or
 * freeze (SIGSTOP) as a worker does in a long pause, to prove what it does
 * when it wakes up stale. Inert unless `POSTERN_FAULT` names one.
 */
export const FaultPoint = {
  after_lease_acquired: 'after_lease_acquired',
  after_dispatch_started: 'after_dispatch_started',
  after_request_sent: 'after_request_sent',
  before_response_complete: 'before_response_complete',
} as const;
export type FaultPoint = (typeof FaultPoint)[keyof typeof FaultPoint];
export const FAULT_POINTS: readonly FaultPoint[] = Object.values(FaultPoint);

/** `POSTERN_FAULT=<point>` kills; `POSTERN_FAULT=<point>:stop` freezes until a SIGCONT. */
export const FaultAction = {
  kill: 'kill',
  stop: 'stop',
} as const;
export type FaultAction = (typeof FaultAction)[keyof typeof FaultAction];

/**
 * Consulted at each point. `armed` and `kills` let the worker stop renewing
 * its lease first when it is about to die, so that a simulated crash in a
 * test leaves the same traces as a real one (a frozen worker keeps its
 * timers: they fire late, as a real one's would). `hit` does not return
 * when the process dies, and returns once it runs again after a freeze.
 */
export interface FaultSwitch {
  armed(point: FaultPoint): boolean;
  readonly kills: boolean;
  hit(point: FaultPoint): Promise<void>;
}

export const noFaults: FaultSwitch = { armed: () => false, kills: false, hit: async () => undefined };

/**
 * The process switch: at the configured point the process dies with no
 * chance to clean up, or freezes. `beforeStop` runs just before a freeze
 * (the tests learn from it which process to wake).
 */
export function processFaultSwitch(
  configured: FaultPoint | null,
  action: FaultAction = FaultAction.kill,
  beforeStop: (point: FaultPoint) => void = () => undefined,
): FaultSwitch {
  if (configured === null) return noFaults;
  return {
    armed: (point) => point === configured,
    kills: action === FaultAction.kill,
    hit: async (point) => {
      if (point !== configured) return;
      if (action === FaultAction.stop) {
        beforeStop(point);
        process.kill(process.pid, 'SIGSTOP');
        // The timer fires only once the process runs again.
        await new Promise((resolve) => setTimeout(resolve, 10));
        return;
      }
      process.kill(process.pid, 'SIGKILL');
      // SIGKILL is not delivered synchronously everywhere; never go on meanwhile.
      await new Promise<never>(() => undefined);
    },
  };
}
