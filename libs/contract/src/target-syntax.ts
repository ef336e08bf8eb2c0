/**
 * Syntax of HTTP URLs and SSH hosts. The WHATWG URL parser is a pure function
 * of its input; the core reaches it through globalThis because its tsconfig
 * carries no DOM or node types.
 */
interface ParsedUrl {
  protocol: string;
  username: string;
  password: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
}

type UrlConstructor = new (input: string) => ParsedUrl;
const UrlImpl = (globalThis as unknown as { URL: UrlConstructor }).URL;

export interface HttpUrlParts {
  scheme: 'http' | 'https';
  /** Lower case; IPv6 in brackets. */
  host: string;
  port: number;
  /** Path and query, starting with `/`; the fragment is dropped (it never reaches the wire). */
  pathAndQuery: string;
}

const DEFAULT_PORT = { http: 80, https: 443 } as const;
// Whitespace and controls would be silently stripped by the URL parser, so
// the URL the caller wrote would not be the one we send.
const UNSAFE_URL_CHARS = /[\u0000-\u0020\u007f-\u00a0\u2028\u2029\\]/;
const MAX_URL_LENGTH = 8192;

export function parseHttpUrl(input: string): HttpUrlParts | null {
  if (input.length === 0 || input.length > MAX_URL_LENGTH || UNSAFE_URL_CHARS.test(input)) return null;
  const schemeEnd = input.indexOf('://');
  if (schemeEnd < 0) return null;
  const rest = input.slice(schemeEnd + 3);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd < 0 ? rest : rest.slice(0, authorityEnd);
  // `https://@host` parses with an empty username; userinfo of any kind is refused.
  if (authority.includes('@') || authority.length === 0) return null;
  let url: ParsedUrl;
  try {
    url = new UrlImpl(input);
  } catch {
    return null;
  }
  const scheme = url.protocol === 'http:' ? 'http' : url.protocol === 'https:' ? 'https' : null;
  if (scheme === null) return null;
  if (url.username !== '' || url.password !== '' || url.hostname === '') return null;
  const port = url.port === '' ? DEFAULT_PORT[scheme] : Number(url.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  return {
    scheme,
    host: url.hostname.toLowerCase(),
    port,
    pathAndQuery: `${url.pathname === '' ? '/' : url.pathname}${url.search}`,
  };
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const DOTTED_NUMERIC = /^[0-9.]+$/;

/**
 * A host name, an IPv4 address or an IPv6 address (bare or in brackets):
 * no scheme, no user, no port, no spaces.
 */
export function isValidSshHost(host: string): boolean {
  if (host.length === 0 || host.length > 255) return false;
  if (host.includes(':')) return normalizeIpv6(host) !== null;
  if (DOTTED_NUMERIC.test(host)) {
    const parts = host.split('.');
    return parts.length === 4 && parts.every((p) => /^(0|[1-9][0-9]{0,2})$/.test(p) && Number(p) <= 255);
  }
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  return name.split('.').every((label) => LABEL.test(label));
}

/** Canonical bracketed IPv6 form, or null when it is not one. */
export function normalizeIpv6(host: string): string | null {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (!/^[0-9a-fA-F:.]+$/.test(bare)) return null;
  try {
    const url = new UrlImpl(`http://[${bare}]/`);
    return url.hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Lower-case host as used in targets: IPv6 bracketed, trailing dot dropped. */
export function normalizeHost(host: string): string {
  if (host.includes(':')) return normalizeIpv6(host) ?? host.toLowerCase();
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
