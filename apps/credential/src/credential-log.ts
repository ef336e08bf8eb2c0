/**
 * One JSON line per event on stdout. Callers pass only invocation ids, codes,
 * versions and states: never a passphrase, a secret, a sealed value or a
 * credential id (an id can itself be sensitive).
 */
export type LogFields = Record<string, string | number | boolean | null>;

export interface CredentialLog {
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
}

export function stdoutLog(service: string): CredentialLog {
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
export const silentLog: CredentialLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** The name of an error, never its message: messages of library errors can quote request data. */
export function errorName(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}
