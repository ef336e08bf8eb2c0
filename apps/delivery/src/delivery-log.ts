/**
 * One JSON line per event on stdout. Callers pass only ids, codes and
 * counts: never a command, a header or a body, so no secret can reach a log.
 */
export type LogFields = Record<string, string | number | boolean | null>;

export interface DeliveryLog {
  info(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function stdoutLog(service: string): DeliveryLog {
  const write = (level: string, event: string, fields: LogFields = {}): void => {
    process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), level, service, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => write('info', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

/** For tests and embedding: logs nothing. */
export const silentLog: DeliveryLog = { info: () => undefined, error: () => undefined };

/** The name of an error, never its message: messages of library errors can quote request data. */
export function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
