import { join } from 'node:path';

/** What the credential service needs from its environment (CONTRACT.md section 1). */
export interface CredentialConfig {
  servers: string[];
  prefix: string;
  home: string;
  /** `$POSTERN_HOME/vault.json`. */
  vaultFile: string;
}

const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';
const DEFAULT_PREFIX = 'postern';
const DEFAULT_HOME = './.postern';

/** The subject prefix alone: the handlers' subjects are fixed when the controller classes are defined. */
export function readPrefix(env: NodeJS.ProcessEnv): string {
  const raw = env['POSTERN_PREFIX']?.trim();
  return raw ? raw : DEFAULT_PREFIX;
}

export function readCredentialConfig(env: NodeJS.ProcessEnv): CredentialConfig {
  const servers = (env['NATS_URL'] ?? DEFAULT_NATS_URL)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  const home = env['POSTERN_HOME']?.trim() || DEFAULT_HOME;
  return {
    servers: servers.length > 0 ? servers : [DEFAULT_NATS_URL],
    prefix: readPrefix(env),
    home,
    vaultFile: join(home, 'vault.json'),
  };
}
