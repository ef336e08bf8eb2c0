import { join } from 'node:path';
import { readServiceConfig, type ServiceConfig } from '@postern/service';

/** What the credential service needs from its environment (CONTRACT.md section 1): no policy file, a vault file. */
export interface CredentialConfig extends Omit<ServiceConfig, 'configPath'> {
  /** `$POSTERN_HOME/vault.json`. */
  vaultFile: string;
}

export function readCredentialConfig(env: NodeJS.ProcessEnv): CredentialConfig {
  const { servers, prefix, home } = readServiceConfig(env);
  return { servers, prefix, home, vaultFile: join(home, 'vault.json') };
}
