import { HTTP_METHODS } from '@postern/contract';
import type { HttpMethod, IdempotencyContract, TargetLimits, TargetPolicy, TargetTimeouts } from '@postern/contract';
import { childPath, FieldReader, MAX_TIMER_MS, type YamlMapping } from './field-reader.js';
import { DEFAULT_IN_USE_STATUS, DEFAULT_LIMITS, DEFAULT_MISMATCH_STATUS, DEFAULT_TIMEOUTS_MS } from './policy-defaults.js';
import { parseTargetMatch, type TargetMatch } from './target-match.js';

const TARGET_KEYS = [
  'match',
  'retry_safe_methods',
  'callers_may_assert_idempotent',
  'redirects',
  'proxy',
  'idempotency',
  'reconcile',
  'timeouts_ms',
  'limits',
  'response_headers',
  'ca_file',
  'host_keys',
  'idempotent_commands',
] as const;

// Keys that only mean something for one transport. Accepting them elsewhere
// would let an operator believe a protection is in place when it is not.
const HTTP_ONLY_KEYS = ['retry_safe_methods', 'redirects', 'proxy', 'idempotency', 'response_headers', 'ca_file'] as const;
const SSH_ONLY_KEYS = ['host_keys', 'idempotent_commands'] as const;

const REDIRECT_MODES: readonly TargetPolicy['redirects'][] = ['none', 'same_origin'];
const TIMEOUT_KEYS: readonly (keyof TargetTimeouts)[] = ['connect', 'response_headers', 'body'];
const LIMIT_KEYS: readonly (keyof TargetLimits)[] = ['request_body_bytes', 'response_body_bytes', 'response_read_bytes', 'output_bytes'];
const IDEMPOTENCY_KEYS: readonly (keyof IdempotencyContract)[] = ['header', 'scope', 'retention_s', 'margin_s', 'in_use_status', 'mismatch_status'];

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the broker owns or that carry credentials; none may be configured into a request or a stored result. */
const RESERVED_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'host', 'content-length', 'transfer-encoding', 'connection'];
/** OpenSSH's fingerprint form: `SHA256:` and unpadded base64 of 32 bytes. */
const HOST_KEY_FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;
/** The scope is part of a KV key (`<scope>/<idempotency_key>`), so it keeps to KV key characters. */
const IDEMPOTENCY_SCOPE = /^[A-Za-z0-9_=-]+(?:\.[A-Za-z0-9_=-]+)*$/;
const MAX_BYTES = Number.MAX_SAFE_INTEGER;

export interface ParsedTarget {
  target: TargetPolicy;
  match: TargetMatch | undefined;
}

export function parseTarget(reader: FieldReader, value: unknown, path: string): ParsedTarget | undefined {
  if (!reader.isMapping(value)) {
    reader.fail(path, 'must be a mapping with at least `match`');
    return undefined;
  }
  reader.closed(value, path, TARGET_KEYS);

  let match: TargetMatch | undefined;
  const matchText = reader.required(value, 'match', childPath(path, 'match'))
    ? reader.string(value, 'match', childPath(path, 'match'))
    : undefined;
  if (matchText !== undefined) {
    const parsed = parseTargetMatch(matchText);
    if (parsed.ok) match = parsed.match;
    else reader.fail(childPath(path, 'match'), parsed.reason);
  }
  const kind = match === undefined ? undefined : match.scheme === 'ssh' ? 'ssh' : 'http';
  if (kind === 'ssh') misplaced(reader, value, path, HTTP_ONLY_KEYS, 'http(s)');
  if (kind === 'http') misplaced(reader, value, path, SSH_ONLY_KEYS, 'ssh');

  const target: TargetPolicy = {
    match: matchText ?? '',
    retry_safe_methods: readMethods(reader, value, childPath(path, 'retry_safe_methods')),
    callers_may_assert_idempotent: reader.bool(value, 'callers_may_assert_idempotent', childPath(path, 'callers_may_assert_idempotent'), false),
    redirects: readRedirects(reader, value, childPath(path, 'redirects')),
    timeouts_ms: readTimeouts(reader, value, childPath(path, 'timeouts_ms')),
    limits: readLimits(reader, value, childPath(path, 'limits')),
    response_headers: reader.stringList(value, 'response_headers', childPath(path, 'response_headers'), checkResponseHeader).map((h) => h.toLowerCase()),
    host_keys: reader.stringList(value, 'host_keys', childPath(path, 'host_keys'), (key) =>
      HOST_KEY_FINGERPRINT.test(key) ? null : 'must be an OpenSSH SHA256 fingerprint (SHA256: followed by 43 base64 characters)',
    ),
    idempotent_commands: reader.stringList(value, 'idempotent_commands', childPath(path, 'idempotent_commands'), checkRegExp),
  };
  const proxy = readProxy(reader, value, childPath(path, 'proxy'));
  if (proxy !== undefined) target.proxy = proxy;
  const idempotency = readIdempotency(reader, value, childPath(path, 'idempotency'));
  if (idempotency !== undefined) target.idempotency = idempotency;
  const reconcile = readReconcile(reader, value, childPath(path, 'reconcile'), kind);
  if (reconcile !== undefined) target.reconcile = reconcile;
  const caFile = reader.string(value, 'ca_file', childPath(path, 'ca_file'));
  if (caFile !== undefined) target.ca_file = caFile;
  return { target, match };
}

function misplaced(reader: FieldReader, value: YamlMapping, path: string, keys: readonly string[], kind: string): void {
  for (const key of keys) {
    if (value[key] !== undefined) reader.fail(childPath(path, key), `only applies to ${kind} targets`);
  }
}

function readMethods(reader: FieldReader, value: YamlMapping, path: string): HttpMethod[] {
  const methods = reader.stringList(value, 'retry_safe_methods', path, (method) =>
    (HTTP_METHODS as readonly string[]).includes(method) ? null : `must be one of ${HTTP_METHODS.join(', ')}`,
  ) as HttpMethod[];
  return [...new Set(methods)];
}

function readRedirects(reader: FieldReader, value: YamlMapping, path: string): TargetPolicy['redirects'] {
  const mode = value['redirects'];
  if (mode === undefined) return 'none';
  if (typeof mode === 'string' && (REDIRECT_MODES as readonly string[]).includes(mode)) return mode as TargetPolicy['redirects'];
  reader.fail(path, `must be one of ${REDIRECT_MODES.join(', ')}`);
  return 'none';
}

function readTimeouts(reader: FieldReader, value: YamlMapping, path: string): TargetTimeouts {
  const section = reader.section(value, 'timeouts_ms', path);
  if (section !== undefined) reader.closed(section, path, TIMEOUT_KEYS);
  const range = { min: 1, max: MAX_TIMER_MS };
  return {
    connect: reader.int(section, 'connect', childPath(path, 'connect'), DEFAULT_TIMEOUTS_MS.connect, range),
    response_headers: reader.int(section, 'response_headers', childPath(path, 'response_headers'), DEFAULT_TIMEOUTS_MS.response_headers, range),
    body: reader.int(section, 'body', childPath(path, 'body'), DEFAULT_TIMEOUTS_MS.body, range),
  };
}

function readLimits(reader: FieldReader, value: YamlMapping, path: string): TargetLimits {
  const section = reader.section(value, 'limits', path);
  if (section !== undefined) reader.closed(section, path, LIMIT_KEYS);
  const range = { min: 1, max: MAX_BYTES };
  const limits: TargetLimits = {
    request_body_bytes: reader.int(section, 'request_body_bytes', childPath(path, 'request_body_bytes'), DEFAULT_LIMITS.request_body_bytes, range),
    response_body_bytes: reader.int(section, 'response_body_bytes', childPath(path, 'response_body_bytes'), DEFAULT_LIMITS.response_body_bytes, range),
    response_read_bytes: reader.int(section, 'response_read_bytes', childPath(path, 'response_read_bytes'), DEFAULT_LIMITS.response_read_bytes, range),
    output_bytes: reader.int(section, 'output_bytes', childPath(path, 'output_bytes'), DEFAULT_LIMITS.output_bytes, range),
  };
  // The broker reads past the stored size to verify framing; reading less
  // than it stores would make every large body look cut short.
  if (limits.response_read_bytes < limits.response_body_bytes) {
    reader.fail(childPath(path, 'response_read_bytes'), `must be at least response_body_bytes (${limits.response_body_bytes})`);
  }
  return limits;
}

function readProxy(reader: FieldReader, value: YamlMapping, path: string): string | undefined {
  const text = reader.string(value, 'proxy', path);
  if (text === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    reader.fail(path, 'must be a URL like http://proxy.internal:3128');
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    reader.fail(path, 'must be an http:// or https:// proxy');
  } else if (url.username !== '' || url.password !== '') {
    // The policy file is not a secret store; proxy credentials would end up
    // in the bound policy entry and its digest inputs.
    reader.fail(path, 'must not contain credentials');
  } else if (url.pathname !== '/' || url.search !== '' || url.hash !== '') {
    reader.fail(path, 'must be an origin only: no path, query or fragment');
  } else {
    return text;
  }
  return undefined;
}

function readIdempotency(reader: FieldReader, value: YamlMapping, path: string): IdempotencyContract | undefined {
  const section = reader.section(value, 'idempotency', path);
  if (section === undefined) return undefined;
  reader.closed(section, path, IDEMPOTENCY_KEYS);
  const before = reader.errors.length;
  for (const key of ['header', 'scope', 'retention_s'] as const) reader.required(section, key, childPath(path, key));
  const header = reader.string(section, 'header', childPath(path, 'header'));
  if (header !== undefined) {
    const reason = checkHeaderName(header);
    if (reason !== null) reader.fail(childPath(path, 'header'), reason);
  }
  const scope = reader.string(section, 'scope', childPath(path, 'scope'));
  if (scope !== undefined && (!IDEMPOTENCY_SCOPE.test(scope) || scope.length > 128)) {
    reader.fail(childPath(path, 'scope'), 'must be 1..128 of letters, digits, _ = - separated by single dots');
  }
  const retention = reader.int(section, 'retention_s', childPath(path, 'retention_s'), 0, { min: 1 });
  const margin = reader.int(section, 'margin_s', childPath(path, 'margin_s'), 0, { min: 0 });
  // expires_at = accepted + retention - margin must lie after acceptance, or
  // a key would be expired before its first use.
  if (retention > 0 && margin >= retention) {
    reader.fail(childPath(path, 'margin_s'), `must be less than retention_s (${retention})`);
  }
  const statusRange = { min: 400, max: 599 };
  const inUse = reader.int(section, 'in_use_status', childPath(path, 'in_use_status'), DEFAULT_IN_USE_STATUS, statusRange);
  const mismatch = reader.int(section, 'mismatch_status', childPath(path, 'mismatch_status'), DEFAULT_MISMATCH_STATUS, statusRange);
  if (inUse === mismatch) reader.fail(childPath(path, 'mismatch_status'), 'must differ from in_use_status');
  if (reader.errors.length > before || header === undefined || scope === undefined) return undefined;
  return { header, scope, retention_s: retention, margin_s: margin, in_use_status: inUse, mismatch_status: mismatch };
}

function readReconcile(reader: FieldReader, value: YamlMapping, path: string, kind: 'http' | 'ssh' | undefined): Record<string, unknown> | undefined {
  const section = reader.section(value, 'reconcile', path);
  if (section === undefined || kind === undefined) return undefined;
  if (kind === 'ssh') {
    reader.closed(section, path, ['command']);
    reader.required(section, 'command', childPath(path, 'command'));
    const command = reader.string(section, 'command', childPath(path, 'command'));
    return command === undefined ? undefined : { command };
  }
  reader.closed(section, path, ['method', 'url']);
  reader.required(section, 'url', childPath(path, 'url'));
  const url = reader.string(section, 'url', childPath(path, 'url'));
  const method = section['method'] ?? 'GET';
  if (typeof method !== 'string' || !(HTTP_METHODS as readonly string[]).includes(method)) {
    reader.fail(childPath(path, 'method'), `must be one of ${HTTP_METHODS.join(', ')}`);
  }
  return url === undefined ? undefined : { method, url };
}

function checkHeaderName(name: string): string | null {
  if (!HEADER_TOKEN.test(name)) return 'must be an HTTP header name';
  if (RESERVED_HEADERS.includes(name.toLowerCase())) return `must not be ${name.toLowerCase()}`;
  return null;
}

function checkResponseHeader(name: string): string | null {
  return checkHeaderName(name);
}

function checkRegExp(pattern: string): string | null {
  try {
    new RegExp(pattern);
    return null;
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
}
