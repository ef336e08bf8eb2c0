import { errorName, jsonLog } from './json-log.js';

export interface StartFailureOptions {
  /**
   * Whether the error's message goes into the log line next to its name. Only
   * for services whose start-up errors cannot quote a secret (a policy file,
   * NATS unreachable); the credential service's could quote the vault.
   */
  withMessage: boolean;
}

/** Logs `<service>.start_failed` as a JSON line and exits 1: the handler for a failed bootstrap. */
export function exitOnStartFailure(service: string, options: StartFailureOptions): (err: unknown) => never {
  return (err: unknown): never => {
    const fields: Record<string, string> = { error: errorName(err) };
    if (options.withMessage) fields['message'] = err instanceof Error ? err.message : String(err);
    jsonLog(service).error(`${service}.start_failed`, fields);
    process.exit(1);
  };
}
