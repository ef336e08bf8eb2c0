import 'reflect-metadata';
import { exitOnStartFailure, jsonLog, readServiceConfig, startNatsMicroservice } from '@postern/service';
import { intakeQueue } from './intake.constants.js';
import { IntakeModule } from './intake.module.js';

async function bootstrap(): Promise<void> {
  const config = readServiceConfig(process.env);
  const log = jsonLog('intake');
  await startNatsMicroservice(IntakeModule.register(config, { log }), {
    service: 'intake',
    servers: config.servers,
    prefix: config.prefix,
    queue: intakeQueue(config.prefix),
    log,
  });
}

// Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
bootstrap().catch(exitOnStartFailure('intake', { withMessage: true }));
