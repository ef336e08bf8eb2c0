import type { NatsConnection } from '@nats-io/transport-node';
import { Code, CODES, type ReleasedCredential } from '@postern/contract';
import { generateSealKeyPair, openSealed, publicKeyBase64 } from '@postern/vault';
import { SecretReleaseError } from './errors.js';

export interface ReleaseRequest {
  invocation_id: string;
  attempt: number;
  generation: number;
  holder: string;
}

export type ReleaseResult =
  | { kind: 'released'; secret: Uint8Array; credential: ReleasedCredential }
  | { kind: 'refused'; code: Code; message: string | null; action_required: string | null };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function optString(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/**
 * Asks the credential service for the secret of the attempt that holds the
 * lease, sealed to a key pair made for this request alone: the private half
 * never leaves this function, and the plaintext is the caller's to zero.
 */
export async function requestSecret(
  nc: NatsConnection,
  subject: string,
  request: ReleaseRequest,
  timeoutMs: number,
): Promise<ReleaseResult> {
  const keyPair = generateSealKeyPair();
  const body = { ...request, public_key: publicKeyBase64(keyPair) };
  const reply = await nc.request(subject, encoder.encode(JSON.stringify(body)), { timeout: timeoutMs });
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(reply.data));
  } catch (err) {
    throw new SecretReleaseError('the release reply is not JSON', { cause: err });
  }
  if (!isObject(parsed)) throw new SecretReleaseError('the release reply is not an object');
  const error = parsed['error'];
  if (isObject(error)) {
    const code = error['code'];
    if (typeof code !== 'string' || !(CODES as readonly string[]).includes(code)) {
      throw new SecretReleaseError('the release reply has an unknown error code');
    }
    return {
      kind: 'refused',
      code: code as Code,
      message: optString(error['message']),
      action_required: optString(error['action_required']) ?? (code === Code.VAULT_LOCKED ? 'vault_unlock' : null),
    };
  }
  const sealed = parsed['secret_sealed'];
  const credential = parsed['credential'];
  if (typeof sealed !== 'string' || !isObject(credential) || typeof credential['id'] !== 'string') {
    throw new SecretReleaseError('the release reply has no sealed secret');
  }
  let secret: Uint8Array;
  try {
    secret = openSealed(keyPair, sealed);
  } catch (err) {
    throw new SecretReleaseError('the released secret could not be opened', { cause: err });
  }
  return { kind: 'released', secret, credential: credential as unknown as ReleasedCredential };
}
