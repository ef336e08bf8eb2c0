import { CredentialType, type CredentialMeta } from '@postern/contract';
import { parseScope } from './scope.js';

/** A put request once its shape is checked; the secret is still sealed. */
export interface PutInput {
  meta: Omit<CredentialMeta, 'version' | 'created_at' | 'revoked'>;
  secretSealed: string;
}

export type InputCheck<T> = { ok: true; value: T } | { ok: false; field: string; message: string };

export const CREDENTIAL_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
const PARAM = /^[A-Za-z0-9._~-]{1,128}$/;
const USER = /^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/;
const MAX_SCOPES = 64;
// Headers a credential may not claim: the transport or the caller's framing owns them.
const RESERVED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'cookie', 'proxy-authorization', 'te', 'upgrade']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const fail = (field: string, message: string): { ok: false; field: string; message: string } => ({ ok: false, field, message });

export function readCredentialId(input: unknown): InputCheck<string> {
  if (!isObject(input)) return fail('id', 'The request must be a JSON object.');
  const id = input['id'];
  if (typeof id !== 'string' || !CREDENTIAL_ID.test(id)) return fail('id', 'id must be 1..128 of [A-Za-z0-9._:-].');
  return { ok: true, value: id };
}

/**
 * `P.v1.credentials.put`. Messages name the field and the rule, never the
 * value: a value here may be sensitive.
 */
export function parsePutInput(input: unknown): InputCheck<PutInput> {
  const id = readCredentialId(input);
  if (!id.ok) return id;
  const o = input as Record<string, unknown>;
  const type = o['type'];
  if (typeof type !== 'string' || !Object.hasOwn(CredentialType, type)) {
    return fail('type', `type must be one of ${Object.values(CredentialType).join(', ')}.`);
  }
  const ctype = type as CredentialType;
  const ssh = ctype.startsWith('ssh_');
  const scope = o['scope'];
  if (!Array.isArray(scope) || scope.length === 0 || scope.length > MAX_SCOPES) {
    return fail('scope', `scope must be a list of 1..${MAX_SCOPES} origins.`);
  }
  const user = o['user'];
  if (user !== undefined && (typeof user !== 'string' || !USER.test(user))) {
    return fail('user', 'user must be 1..64 of [A-Za-z0-9._-].');
  }
  if (ssh && user === undefined) return fail('user', 'An SSH credential needs a user.');
  for (let i = 0; i < scope.length; i++) {
    const parsed = parseScope(scope[i] as string);
    if (!parsed.ok) return fail(`scope.${i}`, `scope entry ${parsed.reason}.`);
    if (ssh !== (parsed.scope.scheme === 'ssh')) {
      return fail(`scope.${i}`, ssh ? 'An SSH credential needs ssh:// scopes.' : 'An HTTP credential needs http:// or https:// scopes.');
    }
    if (ssh && parsed.scope.user !== user) return fail(`scope.${i}`, "An SSH scope's user must be the credential's user.");
  }
  const meta: PutInput['meta'] = { id: id.value, type: ctype, scope: [...(scope as string[])], approval: 'none' };
  if (user !== undefined) meta.user = user as string;
  const headerName = o['header_name'];
  if (ctype === CredentialType.http_header) {
    if (typeof headerName !== 'string' || !HEADER_NAME.test(headerName) || RESERVED_HEADERS.has(headerName.toLowerCase())) {
      return fail('header_name', 'An http_header credential needs a valid header_name that the transport does not own.');
    }
    meta.header_name = headerName;
  } else if (headerName !== undefined) return fail('header_name', 'header_name is only for http_header credentials.');
  const param = o['param'];
  if (ctype === CredentialType.http_query) {
    if (typeof param !== 'string' || !PARAM.test(param)) return fail('param', 'An http_query credential needs param of [A-Za-z0-9._~-].');
    meta.param = param;
  } else if (param !== undefined) return fail('param', 'param is only for http_query credentials.');
  if (user !== undefined && !ssh && ctype !== CredentialType.http_basic) {
    return fail('user', 'user is only for http_basic and SSH credentials.');
  }
  const approval = o['approval'];
  if (approval !== undefined) {
    if (approval !== 'none' && approval !== 'per_call') return fail('approval', 'approval must be none or per_call.');
    meta.approval = approval;
  }
  const secretSealed = o['secret_sealed'];
  if (typeof secretSealed !== 'string' || secretSealed.length === 0) return fail('secret_sealed', 'secret_sealed is required.');
  return { ok: true, value: { meta, secretSealed } };
}

/** The opened secret must fit its type; the message never quotes it. */
export function checkSecret(meta: PutInput['meta'], secret: Uint8Array): InputCheck<true> {
  if (secret.length === 0) return fail('secret_sealed', 'The secret is empty.');
  if (secret.length > 64 * 1024) return fail('secret_sealed', 'The secret exceeds 64 KiB.');
  if (meta.type.startsWith('http_') && secret.some((b) => b === 0x0d || b === 0x0a || b === 0)) {
    // A line break would let the secret forge extra header lines.
    return fail('secret_sealed', 'An HTTP secret may not contain line breaks or NUL.');
  }
  if (meta.type === CredentialType.http_basic && meta.user === undefined && !secret.includes(0x3a)) {
    return fail('secret_sealed', 'Without a user, an http_basic secret must be user:password.');
  }
  return { ok: true, value: true };
}
