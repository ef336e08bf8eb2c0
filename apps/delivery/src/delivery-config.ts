import { join } from 'node:path';

/** What the delivery service needs from its environment (CONTRACT.md section 1). */
export interface DeliveryConfig {
  servers: string[];
  prefix: string;
  home: string;
  configPath: string;
}

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
const DEFAULT_PREFIX = 'postern';
const DEFAULT_HOME = './.postern';

/** The subject prefix alone: the handlers' subjects are fixed when the controller class is defined. */
export function readPrefix(env: NodeJS.ProcessEnv): string {
  const raw = env['POSTERN_PREFIX']?.trim();
  return raw ? raw : DEFAULT_PREFIX;
}

export function readDeliveryConfig(env: NodeJS.ProcessEnv): DeliveryConfig {
  const servers = (env['NATS_URL'] ?? DEFAULT_NATS_URL)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const home = env['POSTERN_HOME']?.trim() || DEFAULT_HOME;
  const configPath = env['POSTERN_CONFIG']?.trim() || join(home, 'postern.yaml');
  return {
    servers: servers.length > 0 ? servers : [DEFAULT_NATS_URL],
    prefix: readPrefix(env),
    home,
    configPath,
  };
}
