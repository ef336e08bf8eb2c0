import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Transport, type MicroserviceOptions } from '@nestjs/microservices';
import { AwaitAction } from './await-action.js';
import { readDeliveryConfig } from './delivery-config.js';
import { errorName, stdoutLog } from './delivery-log.js';
import { deliveryQueue } from './delivery.constants.js';
import { DeliveryModule } from './delivery.module.js';
import { PlainJsonDeserializer } from './plain-json.deserializer.js';
import { PlainJsonSerializer } from './plain-json.serializer.js';

// Time for replies to open awaits (answered early on stop) to leave before the connection closes.
const GRACE_MS = 500;

async function bootstrap(): Promise<void> {
  const config = readDeliveryConfig(process.env);
  const log = stdoutLog('delivery');
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(DeliveryModule.register(config, { log }), {
    transport: Transport.NATS,
    options: {
      servers: config.servers,
      name: `${config.prefix}-delivery-rpc`,
      queue: deliveryQueue(config.prefix),
      serializer: new PlainJsonSerializer(),
      deserializer: new PlainJsonDeserializer(),
      maxReconnectAttempts: -1,
      gracefulShutdown: true,
      gracePeriod: GRACE_MS,
    },
    // The service logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info('delivery.stopping', { signal });
    app.get(AwaitAction).stop();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('delivery.stop_failed', { error: errorName(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  await app.listen();
  log.info('delivery.listening', { prefix: config.prefix, queue: deliveryQueue(config.prefix) });
}

bootstrap().catch((err: unknown) => {
  // Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
  const message = err instanceof Error ? err.message : String(err);
  stdoutLog('delivery').error('delivery.start_failed', { error: errorName(err), message });
  process.exit(1);
});
