import { parseHttpUrl } from '@postern/contract';
import { parseTargetMatch, type MatchScheme } from '@postern/policy';

/**
 * A credential's scope entry: an HTTP origin (`https://host[:port|:*]`) or an
 * SSH target with its user (`ssh://user@host[:port|:*]`). Hosts are compared
 * as the policy compares them, so a scope and a bound target agree on what
 * "the same host" is.
 */
export interface CredentialScope {
  scheme: MatchScheme;
  host: string;
  port: number | '*';
  /** The SSH user; null for HTTP. */
  user: string | null;
}

export type ScopeParse = { ok: true; scope: CredentialScope } | { ok: false; reason: string };

const SSH_USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;

export function parseScope(text: string): ScopeParse {
  if (typeof text !== 'string') return { ok: false, reason: 'must be a string' };
  const ssh = /^ssh:\/\/([^@/]*)@(.*)$/.exec(text);
  if (ssh !== null) {
    const user = ssh[1] as string;
    if (!SSH_USER.test(user)) return { ok: false, reason: 'has an invalid SSH user' };
    const parsed = parseTargetMatch(`ssh://${ssh[2] as string}`);
    return parsed.ok ? { ok: true, scope: { ...parsed.match, user } } : parsed;
  }
  if (text.startsWith('ssh://')) return { ok: false, reason: 'an SSH scope must name its user: ssh://user@host[:port|:*]' };
  const parsed = parseTargetMatch(text);
  return parsed.ok ? { ok: true, scope: { ...parsed.match, user: null } } : parsed;
}

export interface TargetAddress {
  scheme: MatchScheme;
  host: string;
  port: number;
}

/** The origin of a binding's normalised target (`scheme://host:port/...` or `ssh://host:port`); null if unreadable. */
export function targetAddress(target: string): TargetAddress | null {
  let origin: string;
  if (target.startsWith('ssh://')) origin = target;
  else {
    const parts = parseHttpUrl(target);
    if (parts === null) return null;
    origin = `${parts.scheme}://${parts.host}:${parts.port}`;
  }
  const parsed = parseTargetMatch(origin);
  if (!parsed.ok || parsed.match.port === '*') return null;
  return { scheme: parsed.match.scheme, host: parsed.match.host, port: parsed.match.port };
}

/** Scheme, host and port must match (`*` is any port); an SSH scope's user must be the credential's user. */
export function scopeCovers(scope: CredentialScope, address: TargetAddress, credentialUser: string | undefined): boolean {
  if (scope.scheme !== address.scheme || scope.host !== address.host) return false;
  if (scope.port !== '*' && scope.port !== address.port) return false;
  if (scope.scheme === 'ssh') return scope.user !== null && scope.user === credentialUser;
  return true;
}
