/** The projector could not be configured from its environment. */
export class ProjectorConfigError extends Error {
  override readonly name = 'ProjectorConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** The read model could not be opened, reset or written. */
export class ReadModelError extends Error {
  override readonly name = 'ReadModelError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** A replay was asked for while the projector cannot run one. */
export class ReplayError extends Error {
  override readonly name = 'ReplayError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
