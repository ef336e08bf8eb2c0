import type { ServiceLog } from './json-log.js';
import { errorName } from './json-log.js';

export interface StopOnSignalsOptions {
  /** Names the log events: `<service>.stopping`, `<service>.stop_failed`. */
  service: string;
  log: ServiceLog;
  /** Runs once, before the app closes (e.g. answering open long polls early). */
  beforeClose?: () => void;
}

/**
 * Closes the app on the first SIGTERM or SIGINT and exits: 0 once every
 * shutdown hook ran, 1 if one failed. A second signal while closing is
 * ignored, so an impatient operator cannot cut the drain short.
 */
export function stopOnSignals(app: { close(): Promise<void> }, options: StopOnSignalsOptions): void {
  const { service, log } = options;
  let closing = false;
  const stop = (signal: string): void => {
    if (closing) return;
    closing = true;
    log.info(`${service}.stopping`, { signal });
    options.beforeClose?.();
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error(`${service}.stop_failed`, { error: errorName(err) });
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}
