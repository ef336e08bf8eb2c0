import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FaultPoint, FAULT_POINTS } from './fault-point.js';

/** What the dispatcher needs from its environment (CONTRACT.md section 1). */
export interface DispatcherConfig {
  servers: string[];
  prefix: string;
  home: string;
  configPath: string;
  /** Names this process in leases and in its journal writer ids. */
  instanceId: string;
  /** Set only by the crash tests: the process kills itself at this point. */
  fault: FaultPoint | null;
  /** Parallel pulls on the shared durable consumer. */
  concurrency: number;
  /** `POSTERN_DNS_SERVERS` (`host:port`, comma-separated): resolve names there instead of the system resolver. */
  dnsServers: string[];
}

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
const DEFAULT_PREFIX = 'postern';
const DEFAULT_HOME = './.postern';
const DEFAULT_CONCURRENCY = 8;

export function readDispatcherConfig(env: NodeJS.ProcessEnv): DispatcherConfig {
  const servers = (env['NATS_URL'] ?? DEFAULT_NATS_URL)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const home = env['POSTERN_HOME']?.trim() || DEFAULT_HOME;
  const fault = env['POSTERN_FAULT']?.trim() ?? '';
  const concurrency = Number(env['POSTERN_DISPATCH_CONCURRENCY'] ?? DEFAULT_CONCURRENCY);
  return {
    servers: servers.length > 0 ? servers : [DEFAULT_NATS_URL],
    prefix: env['POSTERN_PREFIX']?.trim() || DEFAULT_PREFIX,
    home,
    configPath: env['POSTERN_CONFIG']?.trim() || join(home, 'postern.yaml'),
    instanceId: newInstanceId(),
    fault: (FAULT_POINTS as readonly string[]).includes(fault) ? (fault as FaultPoint) : null,
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
