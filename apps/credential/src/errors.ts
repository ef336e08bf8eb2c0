/** The credential service's configuration cannot work as given. */
export class CredentialConfigError extends Error {
  override readonly name = 'CredentialConfigError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
