import type { Stage } from '@postern/contract';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** A resolver returning every address for a name (tests inject one). */
export type Lookup = (host: string) => Promise<ResolvedAddress[]>;

/** One connection set-up stage as it happened. */
export interface StageTiming {
  stage: Stage;
  /** Wall-clock start (ms since epoch). */
  started_at_ms: number;
  duration_ms: number;
  ok: boolean;
}
