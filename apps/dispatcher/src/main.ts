import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { exitOnStartFailure, jsonLog, stopOnSignals } from '@postern/service';
import { readDispatcherConfig } from './dispatcher-config.js';
import { DispatcherModule } from './dispatcher.module.js';

async function bootstrap(): Promise<void> {
  const config = readDispatcherConfig(process.env);
  const log = jsonLog('dispatcher');
  const app = await NestFactory.createApplicationContext(DispatcherModule.register(config, { log }), {
    // The dispatcher logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  stopOnSignals(app, { service: 'dispatcher', log });
  // createApplicationContext has run the bootstrap hooks: the consumers are running.
}

// Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
bootstrap().catch(exitOnStartFailure('dispatcher', { withMessage: true }));
