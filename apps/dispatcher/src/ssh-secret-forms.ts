import { secretForms } from '@postern/transport-http';

/** Shorter fragments of a key would shred unrelated output. */
const MIN_LINE = 16;

/**
 * The textual forms in which an SSH secret (a password or a private key)
 * could come back in a command's output: every form an injected HTTP secret
 * is redacted in (raw, base64, hex, URL-encoded, JSON-escaped), the same for
 * the secret without its surrounding whitespace (a password typed with its
 * newline), and, for a multi-line key, each of its lines on its own, so a
 * `cat` of part of the key is caught too. Longest first, as `redact` wants.
 */
export function sshSecretForms(secret: Uint8Array): string[] {
  const raw = Buffer.from(secret).toString('utf8');
  const forms = new Set(secretForms(secret));
  const trimmed = raw.trim();
  if (trimmed !== raw && trimmed.length > 0) for (const form of secretForms(Buffer.from(trimmed, 'utf8'))) forms.add(form);
  for (const line of raw.split(/\r?\n/)) {
    const t = line.trim();
    if (t.length >= MIN_LINE) forms.add(t);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}
