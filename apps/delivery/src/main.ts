import 'reflect-metadata';
import { exitOnStartFailure, jsonLog, readServiceConfig, startNatsMicroservice } from '@postern/service';
import { AwaitAction } from './await-action.js';
import { deliveryQueue } from './delivery.constants.js';
import { DeliveryModule } from './delivery.module.js';

// Time for replies to open awaits (answered early on stop) to leave before the connection closes.
const GRACE_MS = 500;

async function bootstrap(): Promise<void> {
  const config = readServiceConfig(process.env);
  const log = jsonLog('delivery');
  await startNatsMicroservice(DeliveryModule.register(config, { log }), {
    service: 'delivery',
    servers: config.servers,
    prefix: config.prefix,
    queue: deliveryQueue(config.prefix),
    log,
    gracePeriodMs: GRACE_MS,
    beforeClose: (app) => app.get(AwaitAction).stop(),
  });
}

// Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
bootstrap().catch(exitOnStartFailure('delivery', { withMessage: true }));
