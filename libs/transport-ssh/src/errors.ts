/** The caller's signal aborted connection set-up; no set-up failure to report. */
export class SshConnectAbortedError extends Error {
  override name = 'SshConnectAbortedError';
  constructor(options?: { cause?: unknown }) {
    super('SSH connection set-up aborted by the caller', options);
  }
}

/**
 * A key ssh2 cannot parse, or one without its private half. The message never
 * carries key material; the cause is ssh2's own error (its message names the
 * format problem only).
 */
export class InvalidSshKeyError extends Error {
  override name = 'InvalidSshKeyError';
  constructor(options?: { cause?: unknown }) {
    super('SSH key could not be parsed', options);
  }
}
