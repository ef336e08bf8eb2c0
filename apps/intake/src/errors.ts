/** The intake could not finish a request now; nothing false was written, and the caller may resubmit. */
export class IntakeBusyError extends Error {
  override readonly name = 'IntakeBusyError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The intake's configuration cannot work as given. */
export class IntakeConfigError extends Error {
  override readonly name = 'IntakeConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
