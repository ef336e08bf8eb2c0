/**
 * The `match` string of a policy target, parsed: an origin
 * `http(s)://host[:port|:*]` or `ssh://host[:port|:*]`. Hosts are exact
 * (no wildcards): a policy entry names the machines it trusts.
 */
export type MatchScheme = 'http' | 'https' | 'ssh';

export interface TargetMatch {
  scheme: MatchScheme;
  /** As `@postern/contract` normalises target hosts: lower case, IPv6 in brackets, no trailing dot. */
  host: string;
  /** A port, or `*` for any port. */
  port: number | '*';
}

export const DEFAULT_PORTS: Readonly<Record<MatchScheme, number>> = { http: 80, https: 443, ssh: 22 };

export type TargetMatchResult = { ok: true; match: TargetMatch } | { ok: false; reason: string };

const MATCH_SHAPE = /^(https?|ssh):\/\/([^/?#]*)\/?$/;

export function parseTargetMatch(text: string): TargetMatchResult {
  const shape = MATCH_SHAPE.exec(text);
  if (shape === null) {
    if (/^(https?|ssh):\/\//.test(text)) {
      return { ok: false, reason: 'must be an origin only: no path, query or fragment' };
    }
    return { ok: false, reason: 'must be http://host[:port], https://host[:port] or ssh://host[:port] (port may be *)' };
  }
  const scheme = shape[1] as MatchScheme;
  const authority = shape[2] as string;
  // Userinfo has no place in a policy: the SSH user comes from the credential,
  // and an HTTP origin never carries one.
  if (authority.includes('@')) return { ok: false, reason: 'must not contain a user (user@host)' };
  const split = splitHostPort(authority);
  if (split === null) return { ok: false, reason: 'has a malformed host or port' };
  if (split.host.includes('*')) return { ok: false, reason: 'wildcard hosts are not supported; name each host' };
  const host = normalizeHost(split.host);
  if (host === null) return { ok: false, reason: `has an invalid host "${split.host}"` };
  let port: number | '*' = DEFAULT_PORTS[scheme];
  if (split.port !== undefined) {
    if (split.port === '*') port = '*';
    else {
      const parsed = parsePort(split.port);
      if (parsed === null) return { ok: false, reason: `has an invalid port "${split.port}" (1..65535 or *)` };
      port = parsed;
    }
  }
  return { ok: true, match: { scheme, host, port } };
}

/**
 * Host as compared by matching: lower case, IDN in punycode, IPv4 shorthand
 * expanded, IPv6 compressed and bracketed, one trailing dot dropped (the same
 * DNS name). `null` when it is not a host.
 */
export function normalizeHost(raw: string): string | null {
  if (raw === '') return null;
  const bare = raw.startsWith('[') && raw.endsWith(']') ? raw.slice(1, -1) : raw;
  const bracketed = bare.includes(':') ? `[${bare}]` : bare;
  let hostname: string;
  try {
    // The WHATWG parser does the normalisation browsers and undici do, so a
    // policy host compares equal to the host the transport will connect to.
    const url = new URL(`http://${bracketed}/`);
    if (url.port !== '' || url.username !== '' || url.password !== '' || url.pathname !== '/') return null;
    hostname = url.hostname;
  } catch {
    return null;
  }
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === '' || name.endsWith('.') ? null : name;
}

function splitHostPort(authority: string): { host: string; port?: string } | null {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) return null;
    const host = authority.slice(0, close + 1);
    const rest = authority.slice(close + 1);
    if (rest === '') return { host };
    if (!rest.startsWith(':')) return null;
    return { host, port: rest.slice(1) };
  }
  const colon = authority.lastIndexOf(':');
  if (colon < 0) return { host: authority };
  const host = authority.slice(0, colon);
  // A second colon outside brackets is an unbracketed IPv6 address.
  if (host.includes(':')) return null;
  return { host, port: authority.slice(colon + 1) };
}

function parsePort(text: string): number | null {
  if (!/^[0-9]{1,5}$/.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}
