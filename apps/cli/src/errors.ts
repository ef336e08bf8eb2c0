/**
 * The CLI's failures, each mapped to one exit status by `exitCodeForError`, so
 * that no command decides its own exit status from an exception's message.
 */

/** The command line or the local input is wrong: nothing was sent to the broker. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}

/** The command file or stdin is not valid JSON; `offset` is where the parser stopped. */
export class InvalidJsonError extends UsageError {
  override name = 'InvalidJsonError';
  constructor(
    message: string,
    readonly offset: number,
    readonly line: number,
    readonly column: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A feature whose other half is not built yet in this version. */
export class NotAvailableError extends UsageError {
  override name = 'NotAvailableError';
}

export const UnreachableReason = {
  connect_failed: 'connect_failed',
  no_responders: 'no_responders',
  timeout: 'timeout',
  disconnected: 'disconnected',
} as const;
export type UnreachableReason = (typeof UnreachableReason)[keyof typeof UnreachableReason];

/** NATS could not be reached, nobody serves the subject, or no reply came in time. */
export class BrokerUnreachableError extends Error {
  override name = 'BrokerUnreachableError';
  constructor(
    message: string,
    readonly reason: UnreachableReason,
    readonly subject: string | null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The broker answered, but with something that is not a JSON reply. */
export class BadReplyError extends Error {
  override name = 'BadReplyError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
  }
}
