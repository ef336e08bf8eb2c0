// A key that is a valid KV key and does not start with the escape mark is
// kept as is (readable in the NATS CLI); anything else is escaped, so the
// mapping stays injective and deterministic.
const PLAIN_KEY = /^[-/_=A-Za-z0-9]+(\.[-/_=A-Za-z0-9]+)*$/;
const ESCAPE = '=';

/** Turns any string into a valid NATS KV key, reversibly. */
export function encodeKvKey(raw: string): string {
  if (PLAIN_KEY.test(raw) && !raw.startsWith(ESCAPE)) return raw;
  return ESCAPE + Buffer.from(raw, 'utf8').toString('base64url');
}

export function decodeKvKey(key: string): string {
  if (!key.startsWith(ESCAPE)) return key;
  return Buffer.from(key.slice(ESCAPE.length), 'base64url').toString('utf8');
}
