/**
 * One JSON line per event on stdout. Callers pass only ids, codes and
 * counts: never a header, a body, a URL query or a secret.
 */
export type LogFields = Record<string, string | number | boolean | null>;

export interface DispatcherLog {
  info(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function stdoutLog(service: string): DispatcherLog {
  const write = (level: string, event: string, fields: LogFields = {}): void => {
    process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), level, service, event, ...fields })}\n`);
  };
  return {
    info: (event, fields) => write('info', event, fields),
    error: (event, fields) => write('error', event, fields),
  };
}

export const silentLog: DispatcherLog = { info: () => undefined, error: () => undefined };

/** The name of an error, never its message: library messages can quote request data. */
export function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
