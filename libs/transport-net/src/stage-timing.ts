import type { Stage } from '@postern/contract';
import type { StageTiming } from './net-types.js';

/** One finished stage: wall-clock start, monotonic duration. */
export function stageTiming(stage: Stage, started: number, t0: number, ok: boolean): StageTiming {
  return { stage, started_at_ms: started, duration_ms: performance.now() - t0, ok };
}

/** Runs one stage and records its timing, whether it resolves or throws. */
export async function timedStage<T>(stages: StageTiming[], name: Stage, run: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const t0 = performance.now();
  try {
    const value = await run();
    stages.push(stageTiming(name, started, t0, true));
    return value;
  } catch (err) {
    stages.push(stageTiming(name, started, t0, false));
    throw err;
  }
}
