/** The credential service's reply could not be used. */
export class SecretReleaseError extends Error {
  override readonly name = 'SecretReleaseError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
