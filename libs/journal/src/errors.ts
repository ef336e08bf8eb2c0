/** The journal could not be reached or did not answer within its bounds; the outcome of the operation is unknown. */
export class JournalUnavailableError extends Error {
  override name = 'JournalUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An append was refused for a reason that is neither a lost race nor an outage (a caller bug). */
export class AppendConflictError extends Error {
  override name = 'AppendConflictError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A message on an event subject is not a journal event (not JSON, or missing envelope fields). */
export class JournalDecodeError extends Error {
  override name = 'JournalDecodeError';
  readonly seq: number;
  constructor(message: string, seq: number, options?: { cause?: unknown }) {
    super(message, options);
    this.seq = seq;
  }
}
