/** The caller's signal aborted connection set-up; no set-up failure to report. */
export class ConnectAbortedError extends Error {
  override name = 'ConnectAbortedError';
  constructor(options?: { cause?: unknown }) {
    super('connection set-up aborted by the caller', options);
  }
}

/**
 * undici asked for a second socket on a connection that owns exactly one:
 * nothing may go out on a connection Postern did not record.
 */
export class ConnectionSpentError extends Error {
  override name = 'ConnectionSpentError';
  readonly code = 'POSTERN_CONNECTION_SPENT';
  constructor(connectionId: string) {
    super(`connection ${connectionId} has no socket left to hand out`);
  }
}
