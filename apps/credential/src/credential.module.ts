import { Inject, Injectable, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { JournalResources } from '@postern/journal';
import { errorName, journalProviders, jsonLog, type WarningLog } from '@postern/service';
import { passphraseFromEnv, Vault, VaultPassphraseError, type VaultOptions } from '@postern/vault';
import { AuthorizeHandler } from './authorize.handler.js';
import type { CredentialConfig } from './credential-config.js';
import { CredentialOperations } from './credential-operations.js';
import {
  CREDENTIAL_CONFIG,
  CREDENTIAL_JOURNAL,
  CREDENTIAL_LOG,
  CREDENTIAL_PREFIX,
  CREDENTIAL_RESOURCES,
} from './credential.constants.js';
import { CredentialsController } from './credentials.controller.js';
import { CredentialConfigError } from './errors.js';
import { SecretRelease } from './secret-release.js';
import { VaultKeeper } from './vault-keeper.js';
import { VaultController } from './vault.controller.js';
import { VaultOperations } from './vault-operations.js';

export interface CredentialModuleOptions {
  /** Where the service reports what it does (default: JSON lines on stdout). */
  log?: WarningLog;
  /** Vault tuning (tests lower the scrypt cost). */
  vault?: VaultOptions;
  /** Environment for the start-up passphrase (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Zeroes the vault key and closes the NATS connection once the transport stopped taking requests. */
@Injectable()
class CredentialShutdown implements OnApplicationShutdown {
  constructor(
    @Inject(CREDENTIAL_RESOURCES) private readonly res: JournalResources,
    @Inject(CREDENTIAL_LOG) private readonly log: WarningLog,
    private readonly keeper: VaultKeeper,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    this.keeper.vault.lock();
    await this.res.nc.drain().catch(() => undefined);
    this.log.info('credential.stopped');
  }
}

async function openKeeper(config: CredentialConfig, res: JournalResources, options: CredentialModuleOptions, log: WarningLog): Promise<VaultKeeper> {
  const vault = await Vault.open(config.vaultFile, options.vault);
  const passphrase = await passphraseFromEnv(options.env ?? process.env);
  if (passphrase !== null) {
    try {
      await vault.unlockOrInit(passphrase);
    } catch (err) {
      // A wrong start-up passphrase leaves the vault locked: an operator can still unlock it over NATS.
      if (!(err instanceof VaultPassphraseError)) throw err;
      log.error('vault.start_unlock_refused', { reason: 'wrong_passphrase' });
    }
  }
  const keeper = new VaultKeeper(vault, res);
  const { published, removed } = await keeper.republishAll();
  log.info('vault.opened', { state: vault.state, published, removed });
  return keeper;
}

@Module({})
export class CredentialModule {
  static register(config: CredentialConfig, options: CredentialModuleOptions = {}): DynamicModule {
    if (config.prefix !== CREDENTIAL_PREFIX) {
      throw new CredentialConfigError(
        `prefix ${config.prefix} differs from POSTERN_PREFIX (${CREDENTIAL_PREFIX}) the subjects were built from`,
      );
    }
    const log = options.log ?? jsonLog('credential');
    return {
      module: CredentialModule,
      controllers: [VaultController, CredentialsController],
      providers: [
        { provide: CREDENTIAL_CONFIG, useValue: config },
        { provide: CREDENTIAL_LOG, useValue: log },
        ...journalProviders({
          service: 'credential',
          servers: config.servers,
          prefix: config.prefix,
          resources: CREDENTIAL_RESOURCES,
          journal: CREDENTIAL_JOURNAL,
        }),
        {
          provide: VaultKeeper,
          inject: [CREDENTIAL_RESOURCES],
          useFactory: async (res: JournalResources): Promise<VaultKeeper> => {
            try {
              return await openKeeper(config, res, options, log);
            } catch (err) {
              log.error('vault.open_failed', { error: errorName(err) });
              throw err;
            }
          },
        },
        VaultOperations,
        CredentialOperations,
        SecretRelease,
        AuthorizeHandler,
        CredentialShutdown,
      ],
    };
  }
}
