import { join } from 'node:path';

/** What every service reads from its environment (CONTRACT.md section 1); each app adds its own fields. */
export interface ServiceConfig {
  servers: string[];
  prefix: string;
  home: string;
  /** `POSTERN_CONFIG`, else `$POSTERN_HOME/postern.yaml`. */
  configPath: string;
}

export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
export const DEFAULT_PREFIX = 'postern';
export const DEFAULT_HOME = './.postern';

/** The subject prefix alone: handler subjects are fixed when the controller classes are defined, before any config. */
export function readPrefix(env: NodeJS.ProcessEnv): string {
  const raw = env['POSTERN_PREFIX']?.trim();
  return raw ? raw : DEFAULT_PREFIX;
}

/** `POSTERN_HOME`, else `./.postern`. */
export function readHome(env: NodeJS.ProcessEnv): string {
  return env['POSTERN_HOME']?.trim() || DEFAULT_HOME;
}

export function readServiceConfig(env: NodeJS.ProcessEnv): ServiceConfig {
  const servers = (env['NATS_URL'] ?? DEFAULT_NATS_URL)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const home = readHome(env);
  const configPath = env['POSTERN_CONFIG']?.trim() || join(home, 'postern.yaml');
  return {
    servers: servers.length > 0 ? servers : [DEFAULT_NATS_URL],
    prefix: readPrefix(env),
    home,
    configPath,
  };
}
