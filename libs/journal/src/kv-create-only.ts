import type { KV } from '@nats-io/kv';

export type KvCreateResult<T> = { created: true; revision: number } | { created: false; existing: T; revision: number };

const encoder = new TextEncoder();
const MAX_TRIES = 3;

/** Reads a JSON value; null when the key is absent or deleted. */
export async function kvGetJson<T>(kv: KV, key: string): Promise<{ value: T; revision: number } | null> {
  const entry = await kv.get(key);
  if (entry === null || entry.operation !== 'PUT') return null;
  return { value: entry.json<T>(), revision: entry.revision };
}

/**
 * Writes `value` only if `key` holds nothing; otherwise returns what is there.
 * This is how the first of several racing writers claims a key.
 */
export async function kvCreateOnly<T>(kv: KV, key: string, value: T): Promise<KvCreateResult<T>> {
  const data = encoder.encode(JSON.stringify(value));
  let lastError: unknown;
  // Bounded: the key can vanish between a failed create and the read (a delete), so try again.
  for (let i = 0; i < MAX_TRIES; i++) {
    try {
      const revision = await kv.create(key, data);
      return { created: true, revision };
    } catch (err) {
      lastError = err;
      const existing = await kvGetJson<T>(kv, key);
      if (existing !== null) return { created: false, existing: existing.value, revision: existing.revision };
    }
  }
  throw lastError;
}
