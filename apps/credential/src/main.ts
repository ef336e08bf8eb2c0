import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { readCredentialConfig } from './credential-config.js';
import { errorName, stdoutLog } from './credential-log.js';
import { credentialQueue } from './credential.constants.js';
import { CredentialModule } from './credential.module.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

async function bootstrap(): Promise<void> {
  const config = readCredentialConfig(process.env);
  const log = stdoutLog('credential');
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(CredentialModule.register(config, { log }), {
    transport: Transport.NATS,
    options: {
      servers: config.servers,
      name: `${config.prefix}-credential-rpc`,
      queue: credentialQueue(config.prefix),
      serializer: new PlainJsonSerializer(),
      deserializer: new PlainJsonDeserializer(),
      maxReconnectAttempts: -1,
    },
    // The service logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info('credential.stopping', { signal });
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('credential.stop_failed', { error: errorName(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await app.listen();
  log.info('credential.listening', { prefix: config.prefix, queue: credentialQueue(config.prefix) });
}

bootstrap().catch((err: unknown) => {
  // Only the error's name: a start-up error could quote the vault file or the passphrase file.
  stdoutLog('credential').error('credential.start_failed', { error: errorName(err) });
  process.exit(1);
});
