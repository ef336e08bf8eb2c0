/**
 * One JSON line per event on stdout. Callers pass only ids, codes, counts,
 * versions and states: never a command, a header, a body, a URL query, a
 * passphrase, a secret or a sealed value, so no secret can reach a log.
 */
export type LogFields = Record<string, string | number | boolean | null>;

/** Where a service reports what it does. */
export interface ServiceLog {
  info(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

/** A log that also reports refusals that are nobody's fault (a wrong passphrase, an unsupported approval). */
export interface WarningLog extends ServiceLog {
  warn(event: string, fields?: LogFields): void;
}

export function jsonLog(service: string): WarningLog {
  const write = (level: string, event: string, fields: LogFields = {}): void => {
    process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), level, service, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => write('info', event, fields),
    warn: (event, fields) => write('warn', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

/** For tests and embedding: logs nothing. */
export const silentLog: WarningLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The name of an error, never its message: messages of library errors can quote request data. */
export function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
