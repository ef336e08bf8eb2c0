import type { ActionCommand, BodyInput, StdinInput } from './action-command.js';
import { decodedBodyBytes } from './parse-action-command.js';

/** A body as the journal keeps it: by digest, never by content. */
export interface BodySummary {
  digest: string | null;
  bytes: number;
  encoding: 'text' | 'base64' | 'json';
}

/**
 * The command as ACTION_ACCEPTED records it (`data.command`): the body or
 * stdin replaced by its digest, and the values of headers that carry
 * credentials replaced, so the journal never holds a payload or a secret.
 */
export interface CommandSummary extends Omit<ActionCommand, 'http' | 'ssh'> {
  http?: Omit<NonNullable<ActionCommand['http']>, 'body'> & { body?: BodySummary };
  ssh?: Omit<NonNullable<ActionCommand['ssh']>, 'stdin'> & { stdin?: BodySummary };
}

export const REDACTED = '[REDACTED]';
const REDACTED_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie']);

function summarizeBody(body: BodyInput | StdinInput, digest: string | null): BodySummary {
  const encoding = 'text' in body ? 'text' : 'base64' in body ? 'base64' : 'json';
  return { digest, bytes: decodedBodyBytes(body), encoding };
}

/** `bodyDigest` is the shell's digest of the decoded body or stdin (the core does not hash). */
export function summarizeCommand(command: ActionCommand, bodyDigest: string | null): CommandSummary {
  const { http, ssh, ...rest } = command;
  const summary: CommandSummary = { ...rest };
  if (http !== undefined) {
    const { body, headers, ...httpRest } = http;
    summary.http = { ...httpRest };
    if (headers !== undefined) {
      summary.http.headers = Object.fromEntries(
        Object.entries(headers).map(([name, value]) => [name, REDACTED_HEADERS.has(name.toLowerCase()) ? REDACTED : value]),
      );
    }
    if (body !== undefined) summary.http.body = summarizeBody(body, bodyDigest);
  }
  if (ssh !== undefined) {
    const { stdin, ...sshRest } = ssh;
    summary.ssh = { ...sshRest };
    if (stdin !== undefined) summary.ssh.stdin = summarizeBody(stdin, bodyDigest);
  }
  return summary;
}
