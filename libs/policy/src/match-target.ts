import type { Policy, TargetPolicy } from '@postern/contract';
import { normalizeHost, parseTargetMatch, type TargetMatch } from './target-match.js';

/** Where an action wants to go, as intake has normalised it. */
export type TargetAddress =
  | { kind: 'http'; scheme: 'http' | 'https'; host: string; port: number }
  | { kind: 'ssh'; host: string; port: number };

// Policies are immutable once parsed; parsing each `match` once per entry
// keeps matching cheap on the submit path.
const parsedMatches = new WeakMap<TargetPolicy, TargetMatch | null>();

function matchOf(entry: TargetPolicy): TargetMatch | null {
  let match = parsedMatches.get(entry);
  if (match === undefined) {
    const parsed = parseTargetMatch(entry.match);
    match = parsed.ok ? parsed.match : null;
    parsedMatches.set(entry, match);
  }
  return match;
}

/**
 * The policy entry that governs `target`: exact scheme, host compared
 * case-insensitively, port equal (a `match` without a port means the
 * scheme's default) or `*`. The first entry in file order wins; `null` means
 * the target is not allowed.
 */
export function matchTarget(policy: Policy, target: TargetAddress): TargetPolicy | null {
  const scheme = target.kind === 'ssh' ? 'ssh' : target.scheme;
  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) return null;
  const host = normalizeHost(target.host);
  if (host === null) return null;
  for (const entry of policy.targets) {
    const match = matchOf(entry);
    if (match === null || match.scheme !== scheme || match.host !== host) continue;
    if (match.port === '*' || match.port === target.port) return entry;
  }
  return null;
}
