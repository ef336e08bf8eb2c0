import type { Binding } from '@postern/contract';

export interface SshBoundTarget {
  host: string;
  port: number;
}

/** The host and port of a bound `ssh://host:port` target; null if it is not one. */
export function sshTargetOf(binding: Binding): SshBoundTarget | null {
  const m = /^ssh:\/\/(\[[^\]]+\]|[^:/@[\]]+):(\d{1,5})$/.exec(binding.target);
  if (m === null) return null;
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  const raw = m[1] as string;
  // Sockets want an IPv6 literal without its brackets.
  return { host: raw.startsWith('[') ? raw.slice(1, -1) : raw, port };
}
