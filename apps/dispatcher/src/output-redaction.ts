const REDACTED = Buffer.from('[REDACTED]', 'utf8');
/** Shorter fragments of a key would shred unrelated output. */
const MIN_LINE = 16;

/**
 * The textual forms in which an SSH secret (a password or a private key)
 * could come back in a command's output: raw, base64, hex, URL-encoded,
 * JSON-escaped, and, for a multi-line key, each of its lines on its own, so
 * a `cat` of part of the key is caught too.
 *
 * The HTTP transport has an equivalent for injected HTTP secrets; this one
 * stays here so the SSH path does not depend on the HTTP transport.
 */
export function sshSecretForms(secret: Uint8Array): string[] {
  const buf = Buffer.from(secret);
  const raw = buf.toString('utf8');
  const forms = new Set<string>([
    raw,
    raw.trim(),
    buf.toString('base64'),
    buf.toString('base64').replace(/=+$/, ''),
    buf.toString('base64url'),
    buf.toString('hex'),
    buf.toString('hex').toUpperCase(),
    encodeURIComponent(raw),
    encodeURIComponent(raw).replace(/%20/g, '+'),
    JSON.stringify(raw).slice(1, -1),
  ]);
  for (const line of raw.split(/\r?\n/)) {
    const t = line.trim();
    if (t.length >= MIN_LINE) forms.add(t);
  }
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

/** Replaces every occurrence of any form with `[REDACTED]`, longest form first. */
export function redactOutput(bytes: Uint8Array, forms: readonly string[]): Uint8Array {
  let current = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const form of forms) {
    const needle = Buffer.from(form, 'utf8');
    let at = current.indexOf(needle);
    if (at < 0) continue;
    const parts: Buffer[] = [];
    let start = 0;
    while (at >= 0) {
      parts.push(current.subarray(start, at), REDACTED);
      start = at + needle.length;
      at = current.indexOf(needle, start);
    }
    parts.push(current.subarray(start));
    current = Buffer.concat(parts);
  }
  return new Uint8Array(current.buffer, current.byteOffset, current.byteLength);
}
