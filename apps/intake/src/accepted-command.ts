import type { ActionCommand } from '@postern/contract';

/** Where a request body or stdin went: the payload store holds the bytes, the journal only this. */
export interface PayloadRef {
  digest: string;
  bytes: number;
  encoding: 'text' | 'base64' | 'json';
}

export const REDACTED = '[REDACTED]';

// Header values that carry credentials by their very name. A credential's own
// injected header is added per command, since any name can carry a secret.
const SECRET_HEADERS: readonly string[] = ['authorization', 'proxy-authorization', 'cookie'];

export function encodingOf(body: object): PayloadRef['encoding'] {
  if ('json' in body) return 'json';
  if ('base64' in body) return 'base64';
  return 'text';
}

/**
 * The command as ACTION_ACCEPTED keeps it: the body or stdin replaced by a
 * reference into the payload store, and header values that may be secrets
 * replaced by `[REDACTED]` (the header names stay, so the rejection that
 * follows can be understood).
 */
export function acceptedCommand(
  command: ActionCommand,
  payload: PayloadRef | null,
  alsoRedact: readonly string[] = [],
): Record<string, unknown> {
  const redact = new Set([...SECRET_HEADERS, ...alsoRedact.map((h) => h.toLowerCase())]);
  const out: Record<string, unknown> = { ...command };
  if (command.http !== undefined) {
    const http: Record<string, unknown> = { ...command.http };
    if (command.http.headers !== undefined) {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(command.http.headers)) {
        headers[name] = redact.has(name.toLowerCase()) ? REDACTED : value;
      }
      http['headers'] = headers;
    }
    if (command.http.body !== undefined) http['body'] = payload;
    out['http'] = http;
  }
  if (command.ssh !== undefined) {
    const ssh: Record<string, unknown> = { ...command.ssh };
    if (command.ssh.stdin !== undefined) ssh['stdin'] = payload;
    out['ssh'] = ssh;
  }
  return out;
}
