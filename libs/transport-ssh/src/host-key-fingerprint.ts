import { createHash } from 'node:crypto';
import ssh2 from 'ssh2';
import { InvalidSshKeyError } from './errors.js';

/**
 * The OpenSSH fingerprint of a public key blob (the SSH wire encoding, as a
 * server presents it): `SHA256:` and unpadded base64, as `ssh-keygen -l`
 * prints it and as the policy's `host_keys` pins are written.
 */
export function sshHostKeyFingerprint(publicKeyBlob: Uint8Array): string {
  const digest = createHash('sha256').update(publicKeyBlob).digest('base64');
  return `SHA256:${digest.replace(/=+$/, '')}`;
}

/**
 * The fingerprint of an OpenSSH public key line (`ssh-ed25519 AAAA... comment`)
 * or of the public half of a private key, for pinning a key one holds.
 */
export function sshKeyFingerprint(key: string | Uint8Array, passphrase?: string): string {
  const parsed = ssh2.utils.parseKey(typeof key === 'string' ? key : Buffer.from(key), passphrase);
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first === undefined || first instanceof Error) throw new InvalidSshKeyError({ cause: first });
  return sshHostKeyFingerprint(first.getPublicSSH());
}

/** Pins normalised for comparison: trimmed, unpadded. Anything not `SHA256:` never matches. */
export function normalizeHostKeyPin(pin: string): string | null {
  const trimmed = pin.trim();
  if (!trimmed.startsWith('SHA256:')) return null;
  const b64 = trimmed.slice('SHA256:'.length).replace(/=+$/, '');
  return b64.length === 0 ? null : `SHA256:${b64}`;
}

/** The private key type (`ssh-ed25519`, `ssh-rsa`, ...), or a typed error: parseable by ssh2, with a private half. */
export function parsePrivateKey(privateKey: Uint8Array | string, passphrase?: string): { type: string; publicKeySha256: string } {
  const parsed = ssh2.utils.parseKey(typeof privateKey === 'string' ? privateKey : Buffer.from(privateKey), passphrase);
  const first = Array.isArray(parsed) ? parsed[0] : parsed;
  if (first === undefined || first instanceof Error) throw new InvalidSshKeyError({ cause: first });
  // A public key parses too; only a private half can authenticate.
  const pem: string | null | undefined = first.getPrivatePEM();
  if (pem === null || pem === undefined || pem === '') throw new InvalidSshKeyError();
  return { type: first.type, publicKeySha256: sshHostKeyFingerprint(first.getPublicSSH()) };
}
