import type { CredentialMeta } from '@postern/contract';

/**
 * The on-disk shape of the vault (`$POSTERN_HOME/vault.json`). Only secret
 * values are encrypted; metadata stays readable so that a locked vault can
 * still list and publish what it holds. Binary fields are standard base64.
 */
export interface VaultKdf {
  name: 'scrypt';
  N: number;
  r: number;
  p: number;
  salt: string;
}

export interface SealedBytes {
  nonce: string;
  /** AES-256-GCM ciphertext followed by its 16-byte tag. */
  ciphertext: string;
}

export interface VaultVersion extends SealedBytes {
  version: number;
  created_at: string;
}

export interface VaultRecord {
  meta: CredentialMeta;
  versions: VaultVersion[];
}

export interface VaultFile {
  format: 1;
  kdf: VaultKdf;
  wrapped_key: SealedBytes;
  records: Record<string, VaultRecord>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isSealed = (v: unknown): v is SealedBytes =>
  isObject(v) && typeof v.nonce === 'string' && typeof v.ciphertext === 'string';
const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/** Shape check of a parsed vault file; the caller turns false into a typed error. */
export function isVaultFile(v: unknown): v is VaultFile {
  if (!isObject(v) || v.format !== 1 || !isObject(v.kdf) || !isSealed(v.wrapped_key) || !isObject(v.records)) return false;
  const kdf = v.kdf;
  if (kdf.name !== 'scrypt' || !isInt(kdf.N) || !isInt(kdf.r) || !isInt(kdf.p) || typeof kdf.salt !== 'string') return false;
  for (const [id, record] of Object.entries(v.records)) {
    if (!isObject(record) || !isObject(record.meta) || record.meta.id !== id || !Array.isArray(record.versions)) return false;
    for (const version of record.versions) {
      if (!isSealed(version) || !isInt((version as unknown as VaultVersion).version)) return false;
    }
  }
  return true;
}
