import type { JournalResources } from './ensure-journal.js';
import { digestOf, type Digest } from './digest.js';
import { JournalUnavailableError } from './errors.js';

/** Object names are the digest itself; stores are content-addressed, so a second put is a no-op. */
export async function putPayload(res: JournalResources, bytes: Uint8Array): Promise<{ digest: Digest; bytes: number }> {
  const digest = digestOf(bytes);
  const store = res.objects.payloads;
  try {
    const info = await store.info(digest);
    if (info === null || info.deleted) {
      await store.putBlob({ name: digest }, bytes);
    }
  } catch (err) {
    throw new JournalUnavailableError('could not store a payload', { cause: err });
  }
  return { digest, bytes: bytes.byteLength };
}

/** The stored bytes, or null when absent; bytes that do not match their digest are treated as absent. */
export async function getPayload(res: JournalResources, digest: string): Promise<Uint8Array | null> {
  let bytes: Uint8Array | null;
  try {
    bytes = await res.objects.payloads.getBlob(digest);
  } catch (err) {
    throw new JournalUnavailableError('could not read a payload', { cause: err });
  }
  if (bytes === null) return null;
  // Callers compare and hash plain bytes; the client may hand back a Buffer.
  const plain = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return digestOf(plain) === digest ? plain : null;
}
