/**
 * Errors of the vault library. Messages are fixed strings: they never echo
 * the input, a passphrase, a key or a secret.
 */

export const VaultErrorCode = {
  SealMalformed: 'SEAL_MALFORMED',
  SealOpenFailed: 'SEAL_OPEN_FAILED',
  PublicKeyInvalid: 'PUBLIC_KEY_INVALID',
  VaultExists: 'VAULT_EXISTS',
  VaultUninitialized: 'VAULT_UNINITIALIZED',
  VaultLocked: 'VAULT_LOCKED',
  VaultFileInvalid: 'VAULT_FILE_INVALID',
  WrongPassphrase: 'WRONG_PASSPHRASE',
  DecryptFailed: 'DECRYPT_FAILED',
  NotFound: 'NOT_FOUND',
  PassphraseSource: 'PASSPHRASE_SOURCE',
} as const;
export type VaultErrorCode = (typeof VaultErrorCode)[keyof typeof VaultErrorCode];

/** Any defect of a sealed value or public key; the input is never echoed. */
export class SealError extends Error {
  override readonly name = 'SealError';
  constructor(
    readonly code: VaultErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The vault is not in the state the operation needs, or its file is unusable. */
export class VaultStateError extends Error {
  override readonly name = 'VaultStateError';
  constructor(
    readonly code: VaultErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The passphrase did not unwrap the data key. */
export class VaultPassphraseError extends Error {
  override readonly name = 'VaultPassphraseError';
  readonly code = VaultErrorCode.WrongPassphrase;
  constructor(options?: { cause?: unknown }) {
    super('wrong passphrase', options);
  }
}

/** A stored record version failed authentication (tampered or corrupt). */
export class VaultDecryptError extends Error {
  override readonly name = 'VaultDecryptError';
  readonly code = VaultErrorCode.DecryptFailed;
  constructor(
    readonly credentialId: string,
    readonly version: number,
    options?: { cause?: unknown },
  ) {
    super(`credential version ${version} could not be decrypted`, options);
  }
}

/** Unknown credential id or version. */
export class VaultNotFoundError extends Error {
  override readonly name = 'VaultNotFoundError';
  readonly code = VaultErrorCode.NotFound;
  constructor(options?: { cause?: unknown }) {
    super('credential not found', options);
  }
}
