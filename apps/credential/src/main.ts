import 'reflect-metadata';
import { exitOnStartFailure, jsonLog, startNatsMicroservice } from '@postern/service';
import { readCredentialConfig } from './credential-config.js';
import { credentialQueue } from './credential.constants.js';
import { CredentialModule } from './credential.module.js';

async function bootstrap(): Promise<void> {
  const config = readCredentialConfig(process.env);
  const log = jsonLog('credential');
  await startNatsMicroservice(CredentialModule.register(config, { log }), {
    service: 'credential',
    serviceTitle: 'credential service',
    servers: config.servers,
    prefix: config.prefix,
    queue: credentialQueue(config.prefix),
    log,
  });
}

// Only the error's name: a start-up error could quote the vault file or the passphrase file.
bootstrap().catch(exitOnStartFailure('credential', { withMessage: false }));
