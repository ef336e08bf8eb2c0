import { Action, type ActionCommand } from './action-command.js';
import type { Binding } from './binding.js';
import { Code } from './code.js';
import { ContractInputError } from './errors.js';
import { decodedBodyBytes } from './parse-action-command.js';
import { CredentialType, type CredentialMeta, type DispatchPolicy, type TargetPolicy } from './target-policy.js';
import { normalizeHost, parseHttpUrl } from './target-syntax.js';
import type { ValidationFailure } from './validation-failure.js';

/** Headers only the broker sets: framing, routing, and anything carrying a secret. */
const ALWAYS_FORBIDDEN = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
] as const;

/** The header a credential injects into the request, if any (lower case). */
function injectedHeader(credential: CredentialMeta): string | null {
  switch (credential.type) {
    case CredentialType.http_bearer:
    case CredentialType.http_basic:
      return 'authorization';
    case CredentialType.http_header:
      return credential.header_name !== undefined ? credential.header_name.toLowerCase() : null;
    default:
      return null;
  }
}

/** Lower-case header names the caller may not set for this target and credential. */
export function forbiddenHeaders(target: TargetPolicy | null, credential: CredentialMeta | null): string[] {
  const names = new Set<string>(ALWAYS_FORBIDDEN);
  if (target?.idempotency !== undefined) names.add(target.idempotency.header.toLowerCase());
  if (credential !== null) {
    const injected = injectedHeader(credential);
    if (injected !== null) names.add(injected);
  }
  return [...names];
}

export interface PreflightInput {
  command: ActionCommand;
  target: TargetPolicy | null;
  credential: CredentialMeta | null;
}

/**
 * The policy checks that follow shape parsing, in the order callers see them
 * (CONTRACT.md section 6, validation rows). Null means the command may be
 * bound and accepted.
 */
export function checkPreflight(input: PreflightInput): ValidationFailure | null {
  const { command, target, credential } = input;
  const isHttp = command.action === Action.http_request;
  if (target === null) {
    return {
      code: Code.TARGET_NOT_ALLOWED,
      field: isHttp ? 'http.url' : 'ssh.host',
      message: isHttp ? 'No policy target allows this URL.' : 'No policy target allows this host.',
    };
  }
  if (credential === null || credential.revoked === true) {
    // Never name the credential: an id can itself be sensitive.
    return { code: Code.UNKNOWN_CREDENTIAL, field: 'credential', message: 'The credential is not known to the broker.' };
  }
  const forbidden = new Set(forbiddenHeaders(target, credential));
  for (const name of Object.keys(command.http?.headers ?? {})) {
    const lower = name.toLowerCase();
    if (forbidden.has(lower)) {
      return {
        code: Code.FORBIDDEN_HEADER,
        field: `http.headers.${lower}`,
        message: 'This header is set by the broker and may not be set by the caller.',
      };
    }
  }
  const limit = target.limits.request_body_bytes;
  const bodyBytes = isHttp ? decodedBodyBytes(command.http?.body) : decodedBodyBytes(command.ssh?.stdin);
  if (bodyBytes > limit) {
    return {
      code: Code.PAYLOAD_LIMIT,
      field: isHttp ? 'http.body' : 'ssh.stdin',
      message: `The decoded body is ${bodyBytes} bytes; the target allows ${limit}.`,
    };
  }
  if (command.idempotency_key !== undefined && target.idempotency === undefined) {
    return {
      code: Code.IDEMPOTENCY_UNSUPPORTED,
      field: 'idempotency_key',
      message: 'The target declares no idempotency contract, so an idempotency_key is not allowed.',
    };
  }
  return null;
}

export type NormalizedTarget =
  | { kind: 'http'; origin: string; target: string }
  | { kind: 'ssh'; host: string; port: number; target: string };

/**
 * The target in the one form that policy matching, credential scopes and the
 * fingerprint use. Ports are always explicit (`https://api.example.com:443`),
 * so `https://h` and `https://h:443` are the same target; hosts are lower
 * case, IPv6 in brackets. Throws ContractInputError for a command that did not
 * come out of parseActionCommand.
 */
export function normalizeTarget(command: ActionCommand): NormalizedTarget {
  if (command.action === Action.http_request) {
    const parts = command.http !== undefined ? parseHttpUrl(command.http.url) : null;
    if (parts === null) throw new ContractInputError('normalizeTarget needs a parsed http.request command');
    const origin = `${parts.scheme}://${parts.host}:${parts.port}`;
    return { kind: 'http', origin, target: `${origin}${parts.pathAndQuery}` };
  }
  if (command.ssh === undefined) throw new ContractInputError('normalizeTarget needs a parsed ssh.exec command');
  const host = normalizeHost(command.ssh.host);
  const port = command.ssh.port ?? 22;
  return { kind: 'ssh', host, port, target: `ssh://${host}:${port}` };
}

export interface KnownIdempotent {
  known: boolean;
  /** What became of the caller's `idempotent: true`; null when it did not assert it. */
  assertion: 'honoured' | 'ignored' | null;
}

/**
 * "Known idempotent" of CONTRACT.md section 6: the policy's word (safe
 * methods, idempotent commands) or the caller's, where the policy lets
 * callers assert it. A method name alone is evidence, not a guarantee.
 */
export function knownIdempotent(command: ActionCommand, target: TargetPolicy): KnownIdempotent {
  let known = false;
  if (command.action === Action.http_request && command.http !== undefined) {
    known = target.retry_safe_methods.includes(command.http.method);
  } else if (command.ssh !== undefined) {
    const text = command.ssh.command;
    known = target.idempotent_commands.some((pattern) => safeTest(pattern, text));
  }
  let assertion: KnownIdempotent['assertion'] = null;
  if (command.idempotent === true) {
    assertion = target.callers_may_assert_idempotent ? 'honoured' : 'ignored';
    if (assertion === 'honoured') known = true;
  }
  return { known, assertion };
}

function safeTest(pattern: string, text: string): boolean {
  try {
    return new RegExp(pattern).test(text);
  } catch {
    // The policy library validates patterns; one that slipped through matches nothing.
    return false;
  }
}

/** Whether a credential of this type can be injected into this action. */
export function injectionSupported(action: Action, credentialType: CredentialType): boolean {
  return action === Action.http_request ? credentialType.startsWith('http_') : credentialType.startsWith('ssh_');
}

export interface BuildBindingInput {
  command: ActionCommand;
  target: TargetPolicy;
  policyDigest: string;
  credential: CredentialMeta;
  bodyDigest: string | null;
  dispatch: DispatchPolicy;
  /** ISO time of ACTION_ACCEPTED. */
  acceptedAt: string;
}

/**
 * The configuration snapshot of PREFLIGHT_VALIDATED. The idempotency expiry
 * is accepted + retention − margin: the margin keeps a retry from arriving at
 * the remote just after it forgot the key.
 */
export function buildBinding(input: BuildBindingInput): Binding {
  const { command, target, credential, dispatch } = input;
  const normalized = normalizeTarget(command);
  const idem = knownIdempotent(command, target);
  let idempotency: Binding['idempotency'] = null;
  if (command.idempotency_key !== undefined && target.idempotency !== undefined) {
    const acceptedMs = Date.parse(input.acceptedAt);
    if (Number.isNaN(acceptedMs)) throw new ContractInputError('acceptedAt must be an ISO time');
    const contract = target.idempotency;
    const expiresMs = acceptedMs + (contract.retention_s - contract.margin_s) * 1000;
    idempotency = {
      key: command.idempotency_key,
      scope: contract.scope,
      header: contract.header,
      expires_at: new Date(expiresMs).toISOString(),
      remote_contract: 'configured',
    };
  }
  return {
    action: command.action,
    target: normalized.target,
    method: command.action === Action.http_request && command.http !== undefined ? command.http.method : null,
    policy_match: target.match,
    policy_digest: input.policyDigest,
    credential: { id: credential.id, version: credential.version, type: credential.type, injection: credential.type },
    body_digest: input.bodyDigest,
    idempotency,
    known_idempotent: idem.known,
    idempotent_assertion: idem.assertion,
    budget: dispatch.budget,
    connect_attempts: dispatch.connect_attempts,
    auto_retry: dispatch.auto_retry,
    lease_ms: dispatch.lease_ms,
  };
}
