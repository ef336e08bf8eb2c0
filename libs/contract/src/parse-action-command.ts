import {
  Action,
  ACTIONS,
  HTTP_METHODS,
  type ActionCommand,
  type BodyInput,
  type HttpMethod,
  type HttpSpec,
  type SshSpec,
  type StdinInput,
} from './action-command.js';
import { Code } from './code.js';
import { isValidSshHost, parseHttpUrl } from './target-syntax.js';
import { base64DecodedLength, isStandardBase64, utf8Length } from './utf8-length.js';
import type { ValidationFailure } from './validation-failure.js';

export type ParseResult = { ok: true; command: ActionCommand } | { ok: false; failure: ValidationFailure };

const ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Header values may not smuggle a line break or NUL into the request head.
const UNSAFE_HEADER_VALUE = /[\u0000\r\n]/;
const PRINTABLE_ASCII = /^[\u0020-\u007e]{1,255}$/;
const MAX_TIMEOUT_MS = 86_400_000;

const TOP_FIELDS = new Set([
  'client_request_id',
  'caller',
  'action',
  'credential',
  'http',
  'ssh',
  'idempotency_key',
  'idempotent',
  'timeout_ms',
]);
const HTTP_FIELDS = new Set(['method', 'url', 'headers', 'body']);
const SSH_FIELDS = new Set(['host', 'port', 'command', 'stdin']);

type Obj = Record<string, unknown>;

function isPlainObject(value: unknown): value is Obj {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function has(obj: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj[key] !== undefined;
}

/**
 * The submission key, or null when the request cannot be keyed at all. The
 * caller answers BAD_REQUEST then and creates nothing (CONTRACT.md section 2).
 */
export function readClientRequestId(input: unknown): string | null {
  if (!isPlainObject(input)) return null;
  const id = input['client_request_id'];
  return typeof id === 'string' && ID_PATTERN.test(id) ? id : null;
}

class Refusal {
  constructor(readonly failure: ValidationFailure) {}
}

function refuse(code: Code, field: string, message: string): never {
  throw new Refusal({ code, field, message });
}

function invalid(field: string, message: string): never {
  return refuse(Code.INVALID_TARGET, field, message);
}

function rejectUnknown(obj: Obj, allowed: Set<string>, path: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) invalid(path === '' ? key : `${path}.${key}`, 'This field is not part of the command.');
  }
}

/**
 * Checks an ActionCommand against the closed schema of CONTRACT.md section 3
 * and returns a fresh object holding only known fields. The first defect
 * found is reported with the path of the field to correct.
 */
export function parseActionCommand(input: unknown): ParseResult {
  try {
    return { ok: true, command: parse(input) };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, failure: err.failure };
    throw err;
  }
}

function parse(input: unknown): ActionCommand {
  if (!isPlainObject(input)) refuse(Code.BAD_REQUEST, '', 'The command must be a JSON object.');
  const clientRequestId = readClientRequestId(input);
  if (clientRequestId === null) {
    refuse(Code.BAD_REQUEST, 'client_request_id', 'client_request_id must be 1 to 128 characters of A-Z a-z 0-9 . _ : -.');
  }
  rejectUnknown(input, TOP_FIELDS, '');

  if (!has(input, 'action')) refuse(Code.MISSING_FIELD, 'action', 'action is required.');
  const action = input['action'];
  if (typeof action !== 'string') invalid('action', 'action must be a string.');
  if (!(ACTIONS as readonly string[]).includes(action)) {
    refuse(Code.UNSUPPORTED_ACTION, 'action', 'action must be http.request or ssh.exec.');
  }

  if (!has(input, 'credential')) refuse(Code.MISSING_FIELD, 'credential', 'credential is required.');
  const credential = input['credential'];
  if (typeof credential !== 'string' || !ID_PATTERN.test(credential)) {
    invalid('credential', 'credential must be 1 to 128 characters of A-Z a-z 0-9 . _ : -.');
  }

  const command: ActionCommand = {
    client_request_id: clientRequestId,
    action: action as Action,
    credential,
  };

  if (has(input, 'caller')) {
    const caller = input['caller'];
    if (typeof caller !== 'string' || caller.length > 128) invalid('caller', 'caller must be a string of at most 128 characters.');
    command.caller = caller;
  }
  if (has(input, 'idempotency_key')) {
    const key = input['idempotency_key'];
    if (typeof key !== 'string' || !PRINTABLE_ASCII.test(key)) {
      invalid('idempotency_key', 'idempotency_key must be 1 to 255 printable ASCII characters.');
    }
    command.idempotency_key = key;
  }
  if (has(input, 'idempotent')) {
    const idempotent = input['idempotent'];
    if (typeof idempotent !== 'boolean') invalid('idempotent', 'idempotent must be a boolean.');
    command.idempotent = idempotent;
  }
  if (has(input, 'timeout_ms')) {
    const timeout = input['timeout_ms'];
    if (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > MAX_TIMEOUT_MS) {
      invalid('timeout_ms', 'timeout_ms must be an integer from 1 to 86400000.');
    }
    command.timeout_ms = timeout;
  }

  if (action === Action.http_request) {
    if (has(input, 'ssh')) invalid('ssh', 'ssh is not allowed for http.request.');
    if (!has(input, 'http')) refuse(Code.MISSING_FIELD, 'http', 'http is required for http.request.');
    command.http = parseHttp(input['http']);
  } else {
    if (has(input, 'http')) invalid('http', 'http is not allowed for ssh.exec.');
    if (!has(input, 'ssh')) refuse(Code.MISSING_FIELD, 'ssh', 'ssh is required for ssh.exec.');
    command.ssh = parseSsh(input['ssh']);
  }
  return command;
}

function parseHttp(value: unknown): HttpSpec {
  if (!isPlainObject(value)) invalid('http', 'http must be an object.');
  rejectUnknown(value, HTTP_FIELDS, 'http');

  if (!has(value, 'method')) refuse(Code.MISSING_FIELD, 'http.method', 'http.method is required.');
  const method = value['method'];
  if (typeof method !== 'string') invalid('http.method', 'http.method must be a string.');
  if (!(HTTP_METHODS as readonly string[]).includes(method)) {
    refuse(Code.UNSUPPORTED_ACTION, 'http.method', 'http.method must be one of GET HEAD OPTIONS POST PUT PATCH DELETE.');
  }

  if (!has(value, 'url')) refuse(Code.MISSING_FIELD, 'http.url', 'http.url is required.');
  const url = value['url'];
  if (typeof url !== 'string' || parseHttpUrl(url) === null) {
    invalid('http.url', 'http.url must be an absolute http or https URL with a host, a valid port and no user info.');
  }

  const spec: HttpSpec = { method: method as HttpMethod, url };
  if (has(value, 'headers')) spec.headers = parseHeaders(value['headers']);
  if (has(value, 'body')) spec.body = parseBody(value['body'], 'http.body', true) as BodyInput;
  return spec;
}

function parseHeaders(value: unknown): Record<string, string> {
  if (!isPlainObject(value)) invalid('http.headers', 'http.headers must be an object of strings.');
  const headers: Record<string, string> = {};
  const seen = new Set<string>();
  for (const name of Object.keys(value)) {
    const lower = name.toLowerCase();
    const field = `http.headers.${lower}`;
    if (!TOKEN.test(name)) invalid(field, 'A header name must be an HTTP token.');
    if (seen.has(lower)) invalid(field, 'A header is given twice.');
    seen.add(lower);
    const headerValue = value[name];
    if (typeof headerValue !== 'string' || UNSAFE_HEADER_VALUE.test(headerValue)) {
      invalid(field, 'A header value must be a string without line breaks.');
    }
    headers[name] = headerValue;
  }
  return headers;
}

function parseBody(value: unknown, field: string, allowJson: boolean): BodyInput | StdinInput {
  const shapes = allowJson ? 'one of {"text"}, {"base64"} or {"json"}' : 'one of {"text"} or {"base64"}';
  if (!isPlainObject(value)) invalid(field, `${field} must be ${shapes}.`);
  const keys = Object.keys(value);
  if (keys.length !== 1) invalid(field, `${field} must be ${shapes}.`);
  const key = keys[0] as string;
  const content = value[key];
  if (key === 'text') {
    if (typeof content !== 'string') invalid(field, `${field}.text must be a string.`);
    return { text: content };
  }
  if (key === 'base64') {
    if (typeof content !== 'string' || !isStandardBase64(content)) invalid(field, `${field}.base64 must be standard base64.`);
    return { base64: content };
  }
  if (key === 'json' && allowJson) {
    if (content === undefined) invalid(field, `${field}.json must be a JSON value.`);
    return { json: content };
  }
  return invalid(field, `${field} must be ${shapes}.`);
}

function parseSsh(value: unknown): SshSpec {
  if (!isPlainObject(value)) invalid('ssh', 'ssh must be an object.');
  rejectUnknown(value, SSH_FIELDS, 'ssh');

  if (!has(value, 'command')) refuse(Code.MISSING_FIELD, 'ssh.command', 'ssh.command is required.');
  const command = value['command'];
  if (typeof command !== 'string' || command.length === 0 || command.includes('\u0000')) {
    invalid('ssh.command', 'ssh.command must be a non-empty string.');
  }

  if (!has(value, 'host')) refuse(Code.MISSING_FIELD, 'ssh.host', 'ssh.host is required.');
  const host = value['host'];
  if (typeof host !== 'string' || !isValidSshHost(host)) {
    invalid('ssh.host', 'ssh.host must be a host name or an IP address, without scheme, user or port.');
  }

  let port = 22;
  if (has(value, 'port')) {
    const p = value['port'];
    if (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > 65535) {
      invalid('ssh.port', 'ssh.port must be an integer from 1 to 65535.');
    }
    port = p;
  }
  const spec: SshSpec = { host, port, command };
  if (has(value, 'stdin')) spec.stdin = parseBody(value['stdin'], 'ssh.stdin', false) as StdinInput;
  return spec;
}

/**
 * Bytes a body or stdin will have on the wire, computed without decoding:
 * what PAYLOAD_LIMIT compares with the target's `request_body_bytes`.
 */
export function decodedBodyBytes(body: BodyInput | StdinInput | undefined): number {
  if (body === undefined) return 0;
  if ('text' in body) return utf8Length(body.text);
  if ('base64' in body) return base64DecodedLength(body.base64);
  const json = JSON.stringify(body.json);
  return json === undefined ? 0 : utf8Length(json);
}
