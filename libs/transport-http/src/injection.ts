import { CredentialType } from '@postern/contract';

/** The credential metadata injection needs (from the release reply). */
export interface InjectionCredential {
  type: CredentialType;
  user?: string;
  header_name?: string;
  param?: string;
}

export interface InjectableRequest {
  /** Path and query as it will go on the request line. */
  path: string;
  headers: Record<string, string>;
}

export class InjectionModeError extends Error {
  override name = 'InjectionModeError';
  constructor(type: string, options?: { cause?: unknown }) {
    super(`credential type ${type} cannot be injected into an HTTP request`, options);
  }
}

const REDACTED = '[REDACTED]';

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  const lower = name.toLowerCase();
  const out: Record<string, string> = {};
  for (const [n, v] of Object.entries(headers)) if (n.toLowerCase() !== lower) out[n] = v;
  return out;
}

function basicToken(user: string | undefined, secret: Uint8Array): string {
  // With no user, a secret already shaped `user:pass` is the whole credential.
  const raw = user === undefined ? Buffer.from(secret) : Buffer.concat([Buffer.from(`${user}:`, 'utf8'), Buffer.from(secret)]);
  return raw.toString('base64');
}

/**
 * Returns the request with the secret placed as the credential type says.
 * Pure: the secret only lives in the returned object, which the caller hands
 * to the socket and drops.
 */
export function injectCredential(req: InjectableRequest, credential: InjectionCredential, secret: Uint8Array): InjectableRequest {
  const text = Buffer.from(secret).toString('utf8');
  switch (credential.type) {
    case CredentialType.http_bearer:
      return { path: req.path, headers: { ...withoutHeader(req.headers, 'authorization'), authorization: `Bearer ${text}` } };
    case CredentialType.http_basic:
      return { path: req.path, headers: { ...withoutHeader(req.headers, 'authorization'), authorization: `Basic ${basicToken(credential.user, secret)}` } };
    case CredentialType.http_header: {
      const name = credential.header_name;
      if (name === undefined || name === '') throw new InjectionModeError(`${credential.type} without header_name`);
      return { path: req.path, headers: { ...withoutHeader(req.headers, name), [name]: text } };
    }
    case CredentialType.http_query: {
      const param = credential.param;
      if (param === undefined || param === '') throw new InjectionModeError(`${credential.type} without param`);
      const hash = req.path.indexOf('#');
      const base = hash >= 0 ? req.path.slice(0, hash) : req.path;
      const sep = base.includes('?') ? (base.endsWith('?') || base.endsWith('&') ? '' : '&') : '?';
      return { path: `${base}${sep}${encodeURIComponent(param)}=${encodeURIComponent(text)}`, headers: { ...req.headers } };
    }
    case CredentialType.ssh_key:
    case CredentialType.ssh_password:
      throw new InjectionModeError(credential.type);
    default: {
      const never: never = credential.type;
      throw new InjectionModeError(String(never));
    }
  }
}

/**
 * Every textual form in which the secret could show up in a response or a
 * stored header: raw, base64 (padded and not), base64url, hex in both cases,
 * URL-encoded (both encoders), JSON-escaped, and the Basic token for `user`.
 */
export function secretForms(secret: Uint8Array, opts: { user?: string } = {}): string[] {
  const buf = Buffer.from(secret);
  const raw = buf.toString('utf8');
  const forms = new Set<string>([
    raw,
    buf.toString('base64'),
    buf.toString('base64').replace(/=+$/, ''),
    buf.toString('base64url'),
    buf.toString('hex'),
    buf.toString('hex').toUpperCase(),
    encodeURIComponent(raw),
    encodeURIComponent(raw).replace(/%20/g, '+'),
    escape(raw),
    // As it appears inside a JSON string (an echoing server, an error body).
    JSON.stringify(raw).slice(1, -1),
  ]);
  if (opts.user !== undefined) {
    const basic = basicToken(opts.user, secret);
    forms.add(basic);
    forms.add(basic.replace(/=+$/, ''));
  }
  // A very short form would shred unrelated bytes; the raw secret is always kept.
  return [...forms].filter((f) => f.length >= 4 || f === raw).filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  return Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength).indexOf(needle, from);
}

/** Replaces each occurrence of any form with `[REDACTED]`, longest form first. */
export function redact(bytes: Uint8Array, forms: readonly string[]): Uint8Array {
  let current = Buffer.from(bytes);
  const marker = Buffer.from(REDACTED, 'utf8');
  for (const form of forms) {
    const needle = Buffer.from(form, 'utf8');
    if (needle.length === 0) continue;
    const parts: Buffer[] = [];
    let start = 0;
    let at = indexOfBytes(current, needle, 0);
    if (at < 0) continue;
    while (at >= 0) {
      parts.push(current.subarray(start, at), marker);
      start = at + needle.length;
      at = indexOfBytes(current, needle, start);
    }
    parts.push(current.subarray(start));
    current = Buffer.concat(parts);
  }
  return new Uint8Array(current.buffer, current.byteOffset, current.byteLength);
}

export function redactText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (form.length > 0) out = out.split(form).join(REDACTED);
  return out;
}
