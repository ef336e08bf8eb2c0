import { randomBytes } from 'node:crypto';
import { readServiceConfig, type ServiceConfig } from '@postern/service';
import { FaultAction, FaultPoint, FAULT_POINTS } from './fault-point.js';

/** What the dispatcher needs from its environment (CONTRACT.md section 1). */
export interface DispatcherConfig extends ServiceConfig {
  /** Names this process in leases and in its journal writer ids. */
  instanceId: string;
  /** Set only by the crash tests: the process kills itself at this point, or freezes there. */
  fault: FaultPoint | null;
  faultAction: FaultAction;
  /** Parallel pulls on the shared durable consumer. */
  concurrency: number;
  /** `POSTERN_DNS_SERVERS` (`host:port`, comma-separated): resolve names there instead of the system resolver. */
  dnsServers: string[];
}

const DEFAULT_CONCURRENCY = 8;

export function readDispatcherConfig(env: NodeJS.ProcessEnv): DispatcherConfig {
  const [fault = '', action = FaultAction.kill] = (env['POSTERN_FAULT']?.trim() ?? '').split(':');
  const concurrency = Number(env['POSTERN_DISPATCH_CONCURRENCY'] ?? DEFAULT_CONCURRENCY);
  return {
    ...readServiceConfig(env),
    instanceId: newInstanceId(),
    fault: (FAULT_POINTS as readonly string[]).includes(fault) && (Object.values(FaultAction) as string[]).includes(action) ? (fault as FaultPoint) : null,
    faultAction: action === FaultAction.stop ? FaultAction.stop : FaultAction.kill,
    dnsServers: (env['POSTERN_DNS_SERVERS'] ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    concurrency: Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64 ? concurrency : DEFAULT_CONCURRENCY,
  };
}

/** A fresh id per process: a restarted dispatcher must not pass for the holder of its old leases. */
export function newInstanceId(): string {
  return `d-${randomBytes(5).toString('hex')}`;
}
