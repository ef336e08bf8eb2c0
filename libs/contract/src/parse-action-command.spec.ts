import { describe, expect, it } from 'vitest';
import { Code } from './code.js';
import { decodedBodyBytes, parseActionCommand, readClientRequestId } from './parse-action-command.js';

function httpCommand(overrides: Record<string, unknown> = {}, http: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_request_id: 'req-7f3a',
    caller: 'agent-7',
    action: 'http.request',
    credential: 'payments-api',
    http: {
      method: 'POST',
      url: 'https://api.example.com/v1/charges',
      headers: { 'content-type': 'application/json' },
      body: { json: { amount: 500 } },
      ...http,
    },
    idempotency_key: 'charge-2026-11-29-001',
    idempotent: false,
    timeout_ms: 30000,
    ...overrides,
  };
}

function sshCommand(ssh: Record<string, unknown> = {}, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    client_request_id: 'req-ssh',
    action: 'ssh.exec',
    credential: 'deploy',
    ssh: { host: '10.0.0.5', command: 'uptime', ...ssh },
    ...overrides,
  };
}

function failure(input: unknown): { code: Code; field: string; message: string } {
  const result = parseActionCommand(input);
  if (result.ok) throw new Error('expected a failure');
  return result.failure;
}

describe('readClientRequestId', () => {
  it('returns a valid id', () => {
    expect(readClientRequestId({ client_request_id: 'a.b_c:d-1' })).toBe('a.b_c:d-1');
  });
  it.each([
    ['not an object', 'req'],
    ['an array', ['req']],
    ['null', null],
    ['a missing id', {}],
    ['an empty id', { client_request_id: '' }],
    ['a too long id', { client_request_id: 'x'.repeat(129) }],
    ['a space', { client_request_id: 'a b' }],
    ['a number', { client_request_id: 7 }],
  ])('is null for %s', (_name, input) => {
    expect(readClientRequestId(input)).toBeNull();
  });
  it('accepts exactly 128 characters', () => {
    expect(readClientRequestId({ client_request_id: 'x'.repeat(128) })).toBe('x'.repeat(128));
  });
});

describe('parseActionCommand: accepted commands', () => {
  it('accepts the contract example and keeps every field', () => {
    const result = parseActionCommand(httpCommand());
    expect(result).toEqual({ ok: true, command: httpCommand() });
  });

  it('fills the default SSH port', () => {
    const result = parseActionCommand(sshCommand({ stdin: { text: 'hi' } }));
    expect(result.ok && result.command.ssh).toEqual({ host: '10.0.0.5', port: 22, command: 'uptime', stdin: { text: 'hi' } });
  });

  it.each(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE'])('accepts method %s', (method) => {
    expect(parseActionCommand(httpCommand({}, { method })).ok).toBe(true);
  });

  it.each(['deploy.example.com', 'localhost', '127.0.0.1', '::1', '[::1]', 'fe80::1', 'host-1.internal.'])('accepts SSH host %s', (host) => {
    expect(parseActionCommand(sshCommand({ host })).ok).toBe(true);
  });

  it('accepts a body of text, of base64, and of json null', () => {
    expect(parseActionCommand(httpCommand({}, { body: { text: 'x' } })).ok).toBe(true);
    expect(parseActionCommand(httpCommand({}, { body: { base64: 'aGk=' } })).ok).toBe(true);
    expect(parseActionCommand(httpCommand({}, { body: { json: null } })).ok).toBe(true);
  });
});

describe('parseActionCommand: refusals', () => {
  it('a non-object is BAD_REQUEST', () => {
    expect(failure([1]).code).toBe(Code.BAD_REQUEST);
  });

  it('an unusable client_request_id is BAD_REQUEST on that field', () => {
    expect(failure(httpCommand({ client_request_id: 'bad id' }))).toMatchObject({ code: Code.BAD_REQUEST, field: 'client_request_id' });
  });

  it.each([
    [{ extra: 1 }, 'extra'],
    [{ http: { method: 'GET', url: 'https://a.example', foo: 1 } }, 'http.foo'],
  ])('an unknown field is INVALID_TARGET with its path', (override, field) => {
    expect(failure(httpCommand(override))).toMatchObject({ code: Code.INVALID_TARGET, field });
  });

  it('an unknown ssh field is INVALID_TARGET with its path', () => {
    expect(failure(sshCommand({ user: 'root' }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'ssh.user' });
  });

  it.each([
    ['action', httpCommand({ action: undefined })],
    ['credential', httpCommand({ credential: undefined })],
    ['http', httpCommand({ http: undefined })],
    ['http.url', httpCommand({}, { url: undefined })],
    ['http.method', httpCommand({}, { method: undefined })],
    ['ssh', sshCommand({}, { ssh: undefined })],
    ['ssh.command', sshCommand({ command: undefined })],
    ['ssh.host', sshCommand({ host: undefined })],
  ])('a missing %s is MISSING_FIELD', (field, input) => {
    expect(failure(input)).toMatchObject({ code: Code.MISSING_FIELD, field });
  });

  it('an unsupported action is UNSUPPORTED_ACTION', () => {
    expect(failure(httpCommand({ action: 'ftp.get' }))).toMatchObject({ code: Code.UNSUPPORTED_ACTION, field: 'action' });
  });

  it.each(['get', 'TRACE', 'CONNECT', 'Post'])('method %s is UNSUPPORTED_ACTION on http.method', (method) => {
    expect(failure(httpCommand({}, { method }))).toMatchObject({ code: Code.UNSUPPORTED_ACTION, field: 'http.method' });
  });

  it.each([
    ['action', httpCommand({ action: 3 })],
    ['http.method', httpCommand({}, { method: 3 })],
    ['http', httpCommand({ http: 'x' })],
    ['caller', httpCommand({ caller: 5 })],
    ['caller', httpCommand({ caller: 'c'.repeat(129) })],
    ['idempotent', httpCommand({ idempotent: 'yes' })],
    ['timeout_ms', httpCommand({ timeout_ms: 0 })],
    ['timeout_ms', httpCommand({ timeout_ms: 1.5 })],
    ['timeout_ms', httpCommand({ timeout_ms: 86_400_001 })],
    ['idempotency_key', httpCommand({ idempotency_key: '' })],
    ['idempotency_key', httpCommand({ idempotency_key: 'k'.repeat(256) })],
    ['idempotency_key', httpCommand({ idempotency_key: 'tab\tkey' })],
    ['credential', httpCommand({ credential: 'no spaces allowed' })],
    ['credential', httpCommand({ credential: 42 })],
    ['ssh', httpCommand({ ssh: { host: 'h', command: 'c' } })],
    ['http', sshCommand({}, { http: { method: 'GET', url: 'https://a.example' } })],
  ])('a wrong %s is INVALID_TARGET', (field, input) => {
    expect(failure(input)).toMatchObject({ code: Code.INVALID_TARGET, field });
  });

  it.each([
    'ftp://example.com/x',
    'https://user:pw@example.com/',
    'https://user@example.com/',
    'https://@example.com/',
    'https://example.com:0/',
    'https://example.com:65536/',
    'https://example.com:abc/',
    'https:///path',
    'example.com/path',
    '/relative',
    'https://exa mple.com/',
    ' https://example.com/',
    'https://example.com/\n',
    'file:///etc/passwd',
    'https://999.1.1.1/',
  ])('URL %j is INVALID_TARGET on http.url', (url) => {
    expect(failure(httpCommand({}, { url }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'http.url' });
  });

  it.each(['ssh://h', 'root@h', 'h h', 'h:22', '', '-bad', '300.1.1.1', 'a..b', 'x'.repeat(64)])('SSH host %j is INVALID_TARGET', (host) => {
    expect(failure(sshCommand({ host }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'ssh.host' });
  });

  it.each([0, 65536, 22.5, '22'])('SSH port %j is INVALID_TARGET', (port) => {
    expect(failure(sshCommand({ port }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'ssh.port' });
  });

  it('an empty SSH command is INVALID_TARGET', () => {
    expect(failure(sshCommand({ command: '' }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'ssh.command' });
  });

  it.each([
    [{ text: 'a', base64: 'YQ==' }],
    [{}],
    [{ text: 3 }],
    [{ base64: 'not base64!' }],
    [{ base64: 'YQ' }],
    [{ base64: 'YQ==\n' }],
    [{ yaml: 'a: 1' }],
    ['raw'],
  ])('body %j is INVALID_TARGET on http.body', (body) => {
    expect(failure(httpCommand({}, { body }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'http.body' });
  });

  it('stdin may not be json', () => {
    expect(failure(sshCommand({ stdin: { json: {} } }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'ssh.stdin' });
  });

  it.each([
    [{ 'bad name': 'v' }, 'http.headers.bad name'],
    [{ 'x-num': 5 }, 'http.headers.x-num'],
    [{ 'X-Inject': 'a\r\nHost: evil' }, 'http.headers.x-inject'],
    [{ 'X-A': '1', 'x-a': '2' }, 'http.headers.x-a'],
  ])('headers %j are INVALID_TARGET on the header path', (headers, field) => {
    expect(failure(httpCommand({}, { headers }))).toMatchObject({ code: Code.INVALID_TARGET, field });
  });

  it('headers that are not an object are INVALID_TARGET on http.headers', () => {
    expect(failure(httpCommand({}, { headers: ['a'] }))).toMatchObject({ code: Code.INVALID_TARGET, field: 'http.headers' });
  });

  it('messages never echo the credential id or a header value', () => {
    const secretish = 'sk_live_ABCDEF';
    const a = failure(httpCommand({ credential: `${secretish} x` }));
    const b = failure(httpCommand({}, { headers: { 'x-token': `${secretish}\n` } }));
    for (const f of [a, b]) expect(JSON.stringify(f)).not.toContain(secretish);
  });
});

describe('decodedBodyBytes', () => {
  it('counts UTF-8 bytes of text by hand', () => {
    expect(decodedBodyBytes({ text: 'aé€😀' })).toBe(1 + 2 + 3 + 4);
    expect(decodedBodyBytes({ text: '\ud800' })).toBe(3);
  });
  it('computes base64 decoded length with padding', () => {
    expect(decodedBodyBytes({ base64: '' })).toBe(0);
    expect(decodedBodyBytes({ base64: 'YQ==' })).toBe(1);
    expect(decodedBodyBytes({ base64: 'YWI=' })).toBe(2);
    expect(decodedBodyBytes({ base64: 'YWJj' })).toBe(3);
  });
  it('counts json as its serialized UTF-8', () => {
    expect(decodedBodyBytes({ json: { a: 'é' } })).toBe('{"a":"é"}'.length + 1);
  });
  it('is 0 without a body', () => {
    expect(decodedBodyBytes(undefined)).toBe(0);
  });
});
