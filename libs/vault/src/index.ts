export {
  SealError,
  VaultDecryptError,
  VaultErrorCode,
  VaultNotFoundError,
  VaultPassphraseError,
  VaultStateError,
} from './errors.js';
export {
  generateSealKeyPair,
  openSealed,
  parsePublicKey,
  publicKeyBase64,
  sealKeyPairFromPrivate,
  sealTo,
} from './seal.js';
export type { SealKeyPair } from './seal.js';
export { passphraseFromEnv } from './passphrase-from-env.js';
export { Vault, VaultState } from './vault.js';
export type { VaultOptions } from './vault.js';
export type { SealedBytes, VaultFile, VaultKdf, VaultRecord, VaultVersion } from './vault-file.js';
