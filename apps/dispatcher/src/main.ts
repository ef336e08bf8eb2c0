import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { readDispatcherConfig } from './dispatcher-config.js';
import { errorName, stdoutLog } from './dispatcher-log.js';
import { DispatcherModule } from './dispatcher.module.js';

async function bootstrap(): Promise<void> {
  const config = readDispatcherConfig(process.env);
  const log = stdoutLog('dispatcher');
  const app = await NestFactory.createApplicationContext(DispatcherModule.register(config, { log }), {
    // The dispatcher logs its own events as JSON lines; Nest only reports trouble.
    logger: ['error', 'warn'],
  });
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info('dispatcher.stopping', { signal });
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error('dispatcher.stop_failed', { error: errorName(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
  // createApplicationContext has run the bootstrap hooks: the consumers are running.
}

bootstrap().catch((err: unknown) => {
  // Start-up errors (policy file, NATS unreachable) carry no request data, so their message helps the operator.
  const message = err instanceof Error ? err.message : String(err);
  stdoutLog('dispatcher').error('dispatcher.start_failed', { error: errorName(err), message });
  process.exit(1);
});
