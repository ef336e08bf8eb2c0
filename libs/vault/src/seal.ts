import {
  createCipheriv,
  createDecipheriv,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { SealError, VaultErrorCode } from './errors.js';

/**
 * Sealed box: standard base64 of
 * `ephemeral_public(32) || nonce(12) || ciphertext || tag(16)`, AES-256-GCM under
 * HKDF-SHA256(X25519 shared secret, salt = ephemeral_public || recipient_public,
 * info = "postern-seal-v1"). Binding both public keys into the salt ties the key
 * to this exact pair, so a sealed value cannot be replayed to another recipient.
 */

const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const INFO = Buffer.from('postern-seal-v1', 'utf8');
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface SealKeyPair {
  /** Raw 32-byte X25519 public key. */
  readonly publicKey: Uint8Array;
  readonly privateKey: KeyObject;
}

function rawPublicKey(key: KeyObject): Uint8Array {
  const jwk = key.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new SealError(VaultErrorCode.PublicKeyInvalid, 'public key export failed');
  return new Uint8Array(Buffer.from(jwk.x, 'base64url'));
}

function importPublicKey(raw: Uint8Array): KeyObject {
  if (raw.length !== KEY_BYTES) throw new SealError(VaultErrorCode.PublicKeyInvalid, 'public key must be 32 bytes');
  try {
    return createPublicKey({
      key: { kty: 'OKP', crv: 'X25519', x: Buffer.from(raw).toString('base64url') },
      format: 'jwk',
    });
  } catch (cause) {
    throw new SealError(VaultErrorCode.PublicKeyInvalid, 'public key is not a valid X25519 key', { cause });
  }
}

function deriveKey(shared: Buffer, ephemeralPublic: Uint8Array, recipientPublic: Uint8Array): Buffer {
  const salt = Buffer.concat([ephemeralPublic, recipientPublic]);
  return Buffer.from(hkdfSync('sha256', shared, salt, INFO, KEY_BYTES));
}

export function generateSealKeyPair(): SealKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('x25519');
  return { publicKey: rawPublicKey(publicKey), privateKey };
}

/** Rebuilds a key pair from a private key (for tests and persisted keys). */
export function sealKeyPairFromPrivate(privateKey: KeyObject): SealKeyPair {
  return { publicKey: rawPublicKey(createPublicKey(privateKey)), privateKey };
}

export function publicKeyBase64(keyPair: SealKeyPair): string {
  return Buffer.from(keyPair.publicKey).toString('base64');
}

/** Parses a standard-base64 raw X25519 public key (exactly 32 bytes). */
export function parsePublicKey(base64: string): Uint8Array {
  if (typeof base64 !== 'string' || !BASE64.test(base64)) {
    throw new SealError(VaultErrorCode.PublicKeyInvalid, 'public key must be standard base64');
  }
  const raw = new Uint8Array(Buffer.from(base64, 'base64'));
  importPublicKey(raw);
  return raw;
}

export function sealTo(recipientPublicKey: Uint8Array, plaintext: Uint8Array): string {
  const recipient = importPublicKey(recipientPublicKey);
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublic = rawPublicKey(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recipient });
  const key = deriveKey(shared, ephemeralPublic, recipientPublicKey);
  const nonce = randomBytes(NONCE_BYTES);
  try {
    const cipher = createCipheriv('aes-256-gcm', key, nonce);
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([ephemeralPublic, nonce, body, cipher.getAuthTag()]).toString('base64');
  } finally {
    shared.fill(0);
    key.fill(0);
  }
}

export function openSealed(keyPair: SealKeyPair, sealed: string): Uint8Array {
  if (typeof sealed !== 'string' || !BASE64.test(sealed)) {
    throw new SealError(VaultErrorCode.SealMalformed, 'sealed value must be standard base64');
  }
  const raw = Buffer.from(sealed, 'base64');
  if (raw.length < KEY_BYTES + NONCE_BYTES + TAG_BYTES) {
    throw new SealError(VaultErrorCode.SealMalformed, 'sealed value is too short');
  }
  const ephemeralPublic = raw.subarray(0, KEY_BYTES);
  const nonce = raw.subarray(KEY_BYTES, KEY_BYTES + NONCE_BYTES);
  const body = raw.subarray(KEY_BYTES + NONCE_BYTES, raw.length - TAG_BYTES);
  const tag = raw.subarray(raw.length - TAG_BYTES);
  let ephemeral: KeyObject;
  try {
    ephemeral = importPublicKey(new Uint8Array(ephemeralPublic));
  } catch (cause) {
    throw new SealError(VaultErrorCode.SealMalformed, 'sealed value has an invalid ephemeral key', { cause });
  }
  let shared: Buffer;
  try {
    shared = diffieHellman({ privateKey: keyPair.privateKey, publicKey: ephemeral });
  } catch (cause) {
    throw new SealError(VaultErrorCode.SealOpenFailed, 'sealed value could not be opened', { cause });
  }
  const key = deriveKey(shared, ephemeralPublic, keyPair.publicKey);
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAuthTag(tag);
    const parts = [decipher.update(body), decipher.final()];
    const plain = Buffer.concat(parts);
    for (const part of parts) part.fill(0);
    return plain;
  } catch (cause) {
    throw new SealError(VaultErrorCode.SealOpenFailed, 'sealed value could not be opened', { cause });
  } finally {
    shared.fill(0);
    key.fill(0);
  }
}
