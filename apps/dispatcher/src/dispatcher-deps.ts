import type { Policy } from '@postern/contract';
import type { JournalResources } from '@postern/journal';
import type { ConnectionPool } from '@postern/transport-http';
import type { Lookup } from '@postern/transport-net';
import type { DispatcherLog } from './dispatcher-log.js';
import type { FaultSwitch } from './fault-point.js';
import type { LeaseStore } from './lease-store.js';

/** Everything one dispatcher process shares between its workers. */
export interface DispatcherDeps {
  res: JournalResources;
  prefix: string;
  instanceId: string;
  policy: { current(): Policy };
  /** Directory a relative `ca_file` is read from (the policy file's). */
  configDir: string;
  pool: ConnectionPool;
  leases: LeaseStore;
  log: DispatcherLog;
  fault: FaultSwitch;
  now: () => number;
  /** Tests resolve names their own way; default: the system resolver. */
  lookup?: Lookup;
  releaseTimeoutMs: number;
  /** Invocations an attempt of this process is working on right now. */
  inFlight: Set<string>;
}
