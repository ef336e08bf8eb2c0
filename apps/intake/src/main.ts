import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { readIntakeConfig } from './intake-config.js';
import { errorName, stdoutLog } from './intake-log.js';
import { intakeQueue } from './intake.constants.js';
import { IntakeModule } from './intake.module.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

async function bootstrap(): Promise<void> {
  const config = readIntakeConfig(process.env);
  const log = stdoutLog('intake');
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(IntakeModule.register(config, { log }), {
    transport: Transport.NATS,
    options: {
      servers: config.servers,
      name: `${config.prefix}-intake-rpc`,
      queue: intakeQueue(config.prefix),
      serializer: new PlainJsonSerializer(),
      deserializer: new PlainJsonDeserializer(),
      maxReconnectAttempts: -1,
    },
    // The intake logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info('intake.stopping', { signal });
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('intake.stop_failed', { error: errorName(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await app.listen();
  log.info('intake.listening', { prefix: config.prefix, queue: intakeQueue(config.prefix) });
}

bootstrap().catch((err: unknown) => {
  // Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
  const message = err instanceof Error ? err.message : String(err);
  stdoutLog('intake').error('intake.start_failed', { error: errorName(err), message });
  process.exit(1);
});
