import type { BoundTarget } from './request-plan.js';

/** The statuses a Location is followed for under `redirects: same_origin`. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

export interface RedirectInput {
  status: number;
  /** The final response head as received. */
  headers: readonly [string, string][];
  /** The target of the attempt that received the 3xx. */
  bound: BoundTarget;
  /** Every form of the injected secret (raw, base64, hex, URL-encoded...). */
  secretForms: readonly string[];
  /** The query parameter an `http_query` credential is injected as: the follow-up injects it again. */
  queryParam?: string;
}

/**
 * The Location of a 3xx to follow as path and query, or null when it must
 * not be followed: not exactly one Location, another scheme, host or port,
 * userinfo in it, or a form of the secret in it (a Location is journaled,
 * and a secret must never be). Credentials never go to another origin
 * because only a path on the same origin ever comes out of here.
 */
export function sameOriginLocation(input: RedirectInput): string | null {
  if (!REDIRECT_STATUSES.has(input.status)) return null;
  const values = input.headers.filter(([name]) => name.toLowerCase() === 'location');
  if (values.length !== 1) return null;
  const raw = values[0]![1].trim();
  if (raw === '') return null;
  const { bound } = input;
  let url: URL;
  try {
    url = new URL(raw, `${bound.origin}${bound.path.startsWith('/') ? bound.path : `/${bound.path}`}`);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  const scheme = url.protocol === 'https:' ? 'https' : url.protocol === 'http:' ? 'http' : null;
  if (scheme === null || scheme !== bound.target.scheme) return null;
  const port = url.port === '' ? (scheme === 'https' ? 443 : 80) : Number(url.port);
  if (`${scheme}://${url.hostname}:${port}` !== bound.origin) return null;
  if (input.queryParam !== undefined && url.searchParams.has(input.queryParam)) url.searchParams.delete(input.queryParam);
  const location = `${url.pathname || '/'}${url.search}`;
  let decoded = location;
  try {
    decoded = decodeURIComponent(location.replace(/\+/g, ' '));
  } catch {
    // Not decodable: the encoded text is all there is to check.
  }
  if (input.secretForms.some((form) => form.length > 0 && (location.includes(form) || decoded.includes(form)))) return null;
  return location;
}

/**
 * The follow-up's method: 303 is a GET without a body (RFC 9110 15.4.4);
 * 307 and 308 keep the method and body by definition; for 301 and 302 RFC
 * 9110 allows either, and an API broker keeps both, the conservative choice
 * (it never turns a POST into a different request on its own).
 */
export function followUpMethod(method: string, status: number): { method: string; keepBody: boolean } {
  if (status === 303 && method !== 'HEAD') return { method: 'GET', keepBody: false };
  return { method, keepBody: true };
}

/** The caller's headers for a follow-up without a body: the ones that describe the body go. */
export function withoutBodyHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === 'content-type' || lower === 'content-encoding' || lower === 'content-language' || lower === 'digest') continue;
    out[name] = value;
  }
  return out;
}

/** `http://host:port` of a policy's `proxy`, for the transport; null when it cannot be used. */
export function proxyAddress(proxy: string): { host: string; port: number } | null {
  let url: URL;
  try {
    url = new URL(proxy);
  } catch {
    return null;
  }
  // The transport speaks plain CONNECT to the proxy; a TLS proxy is not supported.
  if (url.protocol !== 'http:' || url.username !== '' || url.password !== '') return null;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return { host, port: url.port === '' ? 80 : Number(url.port) };
}
