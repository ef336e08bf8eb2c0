import { describe, expect, it } from 'vitest';
import type { Policy } from '@postern/contract';
import { parsePolicy } from './parse-policy.js';
import type { PolicyError } from './policy-error.js';

const FINGERPRINT = 'SHA256:' + Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '');

// CONTRACT.md section 8, with a real fingerprint where the example elides one.
const CONTRACT_EXAMPLE = `
targets:
  - match: "https://api.example.com"        # origin; "*" may stand for the port
    retry_safe_methods: [GET, HEAD]          # default: none
    callers_may_assert_idempotent: false
    redirects: none                          # none | same_origin
    proxy: "http://proxy.internal:3128"      # optional forward proxy
    idempotency:                             # the remote's dedupe contract, only if verified
      header: Idempotency-Key
      scope: payments.create
      retention_s: 86400
      margin_s: 3600
      in_use_status: 409
      mismatch_status: 422
    reconcile:                               # (later) how to ask the remote what happened
      method: GET
      url: "https://api.example.com/v1/charges?idempotency_key={idempotency_key}"
    timeouts_ms: {connect: 5000, response_headers: 30000, body: 30000}
    limits: {request_body_bytes: 262144, response_body_bytes: 8388608, response_read_bytes: 134217728}
    response_headers: [x-ratelimit-remaining]  # stored in addition to the allow-list
    ca_file: ./ca.pem                        # extra trust roots for this target
  - match: "ssh://127.0.0.1:*"
    host_keys: ["${FINGERPRINT}"]                # pinned; anything else is SSH_HOST_KEY_REJECTED
    idempotent_commands: ["^uptime$"]
    reconcile: {command: "deploy-status {invocation_id}"}   # (later)
    limits: {output_bytes: 8388608}
dispatch:
  connect_attempts: 3      # connection tries inside one attempt, before dispatch
  budget: 5                # dispatches per invocation, kept in the journal
  auto_retry: false        # true: the broker follows decide() itself
  lease_ms: 30000          # renewed while an attempt is in flight; a crashed attempt is recovered once it expires
results:
  retention_s: 604800
`;

function ok(text: string): Policy {
  const result = parsePolicy(text);
  if (!result.ok) throw new Error(`expected a valid policy, got ${JSON.stringify(result.errors)}`);
  return result.policy;
}

function errors(text: string): PolicyError[] {
  const result = parsePolicy(text);
  if (result.ok) throw new Error('expected errors, got a valid policy');
  return result.errors;
}

function paths(text: string): string[] {
  return errors(text).map((e) => e.path);
}

const http = (extra: string) => `targets:\n  - match: "http://127.0.0.1:8080"\n${extra}`;
const ssh = (extra: string) => `targets:\n  - match: "ssh://127.0.0.1:22"\n${extra}`;

describe('parsePolicy: the contract example', () => {
  it('parses every value of the https entry', () => {
    const policy = ok(CONTRACT_EXAMPLE);
    expect(policy.targets).toHaveLength(2);
    expect(policy.targets[0]).toEqual({
      match: 'https://api.example.com',
      retry_safe_methods: ['GET', 'HEAD'],
      callers_may_assert_idempotent: false,
      redirects: 'none',
      proxy: 'http://proxy.internal:3128',
      idempotency: {
        header: 'Idempotency-Key',
        scope: 'payments.create',
        retention_s: 86400,
        margin_s: 3600,
        in_use_status: 409,
        mismatch_status: 422,
      },
      reconcile: { method: 'GET', url: 'https://api.example.com/v1/charges?idempotency_key={idempotency_key}' },
      timeouts_ms: { connect: 5000, response_headers: 30000, body: 30000 },
      limits: { request_body_bytes: 262144, response_body_bytes: 8388608, response_read_bytes: 134217728, output_bytes: 8388608 },
      response_headers: ['x-ratelimit-remaining'],
      ca_file: './ca.pem',
      host_keys: [],
      idempotent_commands: [],
    });
  });

  it('parses the ssh entry, dispatch and results', () => {
    const policy = ok(CONTRACT_EXAMPLE);
    const entry = policy.targets[1];
    expect(entry?.match).toBe('ssh://127.0.0.1:*');
    expect(entry?.host_keys).toEqual([FINGERPRINT]);
    expect(entry?.idempotent_commands).toEqual(['^uptime$']);
    expect(entry?.reconcile).toEqual({ command: 'deploy-status {invocation_id}' });
    expect(entry?.limits.output_bytes).toBe(8388608);
    expect(entry?.idempotency).toBeUndefined();
    expect(policy.dispatch).toEqual({ connect_attempts: 3, budget: 5, auto_retry: false, lease_ms: 30000 });
    expect(policy.results).toEqual({ retention_s: 604800 });
  });

  it('keeps non-default values', () => {
    const policy = ok(`
targets:
  - match: "https://x.test:8443"
    retry_safe_methods: [PUT]
    callers_may_assert_idempotent: true
    redirects: same_origin
    timeouts_ms: {connect: 100}
    limits: {response_body_bytes: 10, response_read_bytes: 20}
dispatch: {connect_attempts: 1, budget: 2, auto_retry: true, lease_ms: 500}
results: {retention_s: 60}
`);
    const entry = policy.targets[0];
    expect(entry?.retry_safe_methods).toEqual(['PUT']);
    expect(entry?.callers_may_assert_idempotent).toBe(true);
    expect(entry?.redirects).toBe('same_origin');
    expect(entry?.timeouts_ms).toEqual({ connect: 100, response_headers: 30000, body: 30000 });
    expect(entry?.limits).toEqual({ request_body_bytes: 262144, response_body_bytes: 10, response_read_bytes: 20, output_bytes: 8388608 });
    expect(policy.dispatch).toEqual({ connect_attempts: 1, budget: 2, auto_retry: true, lease_ms: 500 });
    expect(policy.results).toEqual({ retention_s: 60 });
  });
});

describe('parsePolicy: defaults', () => {
  it('an empty file is a valid policy with no targets and default sections', () => {
    for (const text of ['', '# only a comment\n', 'targets:\n', 'targets: []\n']) {
      expect(ok(text)).toEqual({
        targets: [],
        dispatch: { connect_attempts: 3, budget: 5, auto_retry: false, lease_ms: 30000 },
        results: { retention_s: 604800 },
      });
    }
  });

  it('fills every target default for a bare http entry', () => {
    expect(ok(http('')).targets[0]).toEqual({
      match: 'http://127.0.0.1:8080',
      retry_safe_methods: [],
      callers_may_assert_idempotent: false,
      redirects: 'none',
      timeouts_ms: { connect: 5000, response_headers: 30000, body: 30000 },
      limits: { request_body_bytes: 262144, response_body_bytes: 8388608, response_read_bytes: 134217728, output_bytes: 8388608 },
      response_headers: [],
      host_keys: [],
      idempotent_commands: [],
    });
  });

  it('leaves proxy, idempotency, reconcile and ca_file absent when not written', () => {
    const entry = ok(http(''))?.targets[0] ?? {};
    for (const key of ['proxy', 'idempotency', 'reconcile', 'ca_file']) expect(key in entry).toBe(false);
  });

  it('fills idempotency margin and statuses', () => {
    const entry = ok(http('    idempotency: {header: Idempotency-Key, scope: s1, retention_s: 60}\n')).targets[0];
    expect(entry?.idempotency).toEqual({ header: 'Idempotency-Key', scope: 's1', retention_s: 60, margin_s: 0, in_use_status: 409, mismatch_status: 422 });
  });

  it('fills the dispatch keys that are left out', () => {
    expect(ok('dispatch: {budget: 9}\n').dispatch).toEqual({ connect_attempts: 3, budget: 9, auto_retry: false, lease_ms: 30000 });
  });

  it('lower-cases added response headers and drops repeated methods', () => {
    const entry = ok(http('    response_headers: [X-RateLimit-Remaining]\n    retry_safe_methods: [GET, GET, HEAD]\n')).targets[0];
    expect(entry?.response_headers).toEqual(['x-ratelimit-remaining']);
    expect(entry?.retry_safe_methods).toEqual(['GET', 'HEAD']);
  });
});

describe('parsePolicy: errors name the field', () => {
  it('unknown key at the top level', () => {
    expect(errors('target: []\n')).toEqual([{ path: 'target', reason: expect.stringContaining('unknown key') }]);
  });

  it('unknown key in a target', () => {
    expect(paths(http('    retry_safe_method: [GET]\n'))).toEqual(['targets[0].retry_safe_method']);
  });

  it('unknown key in limits, timeouts, idempotency, dispatch and results', () => {
    expect(paths(http('    limits: {body_bytes: 1}\n'))).toEqual(['targets[0].limits.body_bytes']);
    expect(paths(http('    timeouts_ms: {read: 1}\n'))).toEqual(['targets[0].timeouts_ms.read']);
    expect(paths(http('    idempotency: {header: K, scope: s, retention_s: 5, ttl: 1}\n'))).toEqual(['targets[0].idempotency.ttl']);
    expect(paths('dispatch: {retries: 1}\n')).toEqual(['dispatch.retries']);
    expect(paths('results: {keep: 1}\n')).toEqual(['results.keep']);
  });

  it('a __proto__ key is an unknown key, not a way to set inherited values', () => {
    expect(paths('dispatch: {__proto__: {budget: 0}}\n')).toEqual(['dispatch.__proto__']);
  });

  it('wrong types', () => {
    expect(paths('targets: {match: x}\n')).toEqual(['targets']);
    expect(paths('dispatch: 5\n')).toEqual(['dispatch']);
    expect(paths('dispatch: {budget: "5"}\n')).toEqual(['dispatch.budget']);
    expect(paths('dispatch: {auto_retry: "yes"}\n')).toEqual(['dispatch.auto_retry']);
    expect(paths('dispatch: {lease_ms: 1.5}\n')).toEqual(['dispatch.lease_ms']);
    expect(paths(http('    timeouts_ms: {connect: fast}\n'))).toEqual(['targets[0].timeouts_ms.connect']);
    expect(paths(http('    retry_safe_methods: GET\n'))).toEqual(['targets[0].retry_safe_methods']);
    expect(paths(http('    retry_safe_methods: [GET, 5]\n'))).toEqual(['targets[0].retry_safe_methods[1]']);
    expect(paths('targets:\n  - "http://127.0.0.1"\n')).toEqual(['targets[0]']);
    expect(paths('- a\n- b\n')).toEqual(['(root)']);
  });

  it('out of range numbers', () => {
    expect(paths('dispatch: {budget: 0}\n')).toEqual(['dispatch.budget']);
    expect(paths('dispatch: {connect_attempts: -1}\n')).toEqual(['dispatch.connect_attempts']);
    expect(paths('dispatch: {lease_ms: 3000000000}\n')).toEqual(['dispatch.lease_ms']);
    expect(paths('results: {retention_s: 0}\n')).toEqual(['results.retention_s']);
    expect(paths(http('    limits: {request_body_bytes: 0}\n'))).toEqual(['targets[0].limits.request_body_bytes']);
  });

  it('unknown HTTP method and redirect mode', () => {
    expect(errors(http('    retry_safe_methods: [get]\n'))).toEqual([{ path: 'targets[0].retry_safe_methods[0]', reason: expect.stringContaining('GET') }]);
    expect(paths(http('    redirects: follow\n'))).toEqual(['targets[0].redirects']);
  });

  it('match is required', () => {
    expect(errors('targets:\n  - retry_safe_methods: [GET]\n')).toEqual([{ path: 'targets[0].match', reason: 'is required' }]);
  });

  it.each([
    ['ftp://example.com', 'http'],
    ['example.com', 'http'],
    ['https://api.example.com/v1', 'origin only'],
    ['https://api.example.com?x=1', 'origin only'],
    ['https://user@api.example.com', 'user'],
    ['ssh://deploy@127.0.0.1:22', 'user'],
    ['https://*.example.com', 'wildcard'],
    ['https://api.example.com:0', 'port'],
    ['https://api.example.com:65536', 'port'],
    ['https://api.example.com:http', 'port'],
    ['http://exa mple.com', 'host'],
    ['http://::1', 'host or port'],
  ])('bad match %s', (match, reason) => {
    const found = errors(`targets:\n  - match: "${match}"\n`);
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toBe('targets[0].match');
    expect(found[0]?.reason).toContain(reason);
  });

  it('a bad match is reported with the other defects of the same target', () => {
    expect(paths('targets:\n  - match: "gopher://x"\n    limits: {output_bytes: -1}\n')).toEqual([
      'targets[0].match',
      'targets[0].limits.output_bytes',
    ]);
  });

  it('an idempotent command that is not a regular expression', () => {
    const found = errors(ssh('    idempotent_commands: ["^ok$", "(unclosed"]\n'));
    expect(found).toEqual([{ path: 'targets[0].idempotent_commands[1]', reason: expect.stringContaining('regular expression') }]);
  });

  it('margin_s must be less than retention_s', () => {
    expect(paths(http('    idempotency: {header: K, scope: s, retention_s: 60, margin_s: 60}\n'))).toEqual(['targets[0].idempotency.margin_s']);
    expect(ok(http('    idempotency: {header: K, scope: s, retention_s: 60, margin_s: 59}\n')).targets[0]?.idempotency?.margin_s).toBe(59);
  });

  it('idempotency needs header, scope and retention_s', () => {
    expect(paths(http('    idempotency: {margin_s: 1}\n'))).toEqual([
      'targets[0].idempotency.header',
      'targets[0].idempotency.scope',
      'targets[0].idempotency.retention_s',
    ]);
  });

  it('idempotency header, scope and statuses are checked', () => {
    expect(paths(http('    idempotency: {header: "Bad Header", scope: s, retention_s: 5}\n'))).toEqual(['targets[0].idempotency.header']);
    expect(paths(http('    idempotency: {header: Authorization, scope: s, retention_s: 5}\n'))).toEqual(['targets[0].idempotency.header']);
    expect(paths(http('    idempotency: {header: K, scope: "a b", retention_s: 5}\n'))).toEqual(['targets[0].idempotency.scope']);
    expect(paths(http('    idempotency: {header: K, scope: s, retention_s: 5, in_use_status: 200}\n'))).toEqual(['targets[0].idempotency.in_use_status']);
    expect(paths(http('    idempotency: {header: K, scope: s, retention_s: 5, in_use_status: 422}\n'))).toEqual(['targets[0].idempotency.mismatch_status']);
  });

  it('host_keys and idempotent_commands on an http target', () => {
    expect(errors(http(`    host_keys: ["${FINGERPRINT}"]\n`))).toEqual([{ path: 'targets[0].host_keys', reason: 'only applies to ssh targets' }]);
    expect(paths(http('    idempotent_commands: ["^x$"]\n'))).toEqual(['targets[0].idempotent_commands']);
  });

  it('http-only keys on an ssh target', () => {
    expect(
      paths(ssh('    idempotency: {header: K, scope: s, retention_s: 5}\n    redirects: none\n    proxy: "http://p:1"\n    ca_file: ca.pem\n    retry_safe_methods: [GET]\n    response_headers: [x-a]\n')),
    ).toEqual([
      'targets[0].retry_safe_methods',
      'targets[0].redirects',
      'targets[0].proxy',
      'targets[0].idempotency',
      'targets[0].response_headers',
      'targets[0].ca_file',
    ]);
  });

  it('host keys must be SHA256 fingerprints', () => {
    expect(paths(ssh('    host_keys: ["SHA256:..."]\n'))).toEqual(['targets[0].host_keys[0]']);
    expect(paths(ssh('    host_keys: ["MD5:aa:bb"]\n'))).toEqual(['targets[0].host_keys[0]']);
  });

  it('a proxy must be an http(s) origin without credentials', () => {
    expect(paths(http('    proxy: "socks5://p:1080"\n'))).toEqual(['targets[0].proxy']);
    expect(errors(http('    proxy: "http://u:secret@p:3128"\n'))).toEqual([{ path: 'targets[0].proxy', reason: 'must not contain credentials' }]);
    expect(paths(http('    proxy: "http://p:3128/path"\n'))).toEqual(['targets[0].proxy']);
    expect(paths(http('    proxy: "not a url"\n'))).toEqual(['targets[0].proxy']);
  });

  it('response headers that carry secrets cannot be stored', () => {
    expect(paths(http('    response_headers: [set-cookie, x-ok, "bad header"]\n'))).toEqual([
      'targets[0].response_headers[0]',
      'targets[0].response_headers[2]',
    ]);
  });

  it('response_read_bytes below response_body_bytes', () => {
    expect(paths(http('    limits: {response_body_bytes: 100, response_read_bytes: 99}\n'))).toEqual(['targets[0].limits.response_read_bytes']);
  });

  it('reconcile is checked against the target kind', () => {
    expect(paths(http('    reconcile: {command: "x"}\n'))).toEqual(['targets[0].reconcile.command', 'targets[0].reconcile.url']);
    expect(paths(ssh('    reconcile: {url: "x"}\n'))).toEqual(['targets[0].reconcile.url', 'targets[0].reconcile.command']);
    expect(paths(http('    reconcile: {method: FETCH, url: "http://127.0.0.1:8080/s"}\n'))).toEqual(['targets[0].reconcile.method']);
  });

  it('an entry shadowed by an earlier one is reported', () => {
    const text = 'targets:\n  - match: "http://127.0.0.1:*"\n  - match: "http://127.0.0.1:8080"\n  - match: "http://LOCALHOST"\n  - match: "http://localhost:80"\n';
    expect(errors(text)).toEqual([
      { path: 'targets[1].match', reason: expect.stringContaining('targets[0]') },
      { path: 'targets[3].match', reason: expect.stringContaining('targets[2]') },
    ]);
  });

  it('collects the defects of several targets and sections in one pass', () => {
    expect(paths('targets:\n  - match: "http://a"\n    limits: {x: 1}\n  - match: "https://b"\n    redirects: 1\ndispatch: {budget: 0}\nextra: 1\n')).toEqual([
      'extra',
      'targets[0].limits.x',
      'targets[1].redirects',
      'dispatch.budget',
    ]);
  });

  it('YAML syntax errors are one (file) error with the line', () => {
    const found = errors('targets:\n  - match: "http://a"\n    limits: {x: 1\n');
    expect(found).toHaveLength(1);
    expect(found[0]?.path).toBe('(file)');
    expect(found[0]?.reason).toMatch(/^line \d+, column \d+: /);
  });

  it('duplicate keys are a syntax error', () => {
    const found = errors('dispatch: {budget: 1}\ndispatch: {budget: 2}\n');
    expect(found).toEqual([{ path: '(file)', reason: expect.stringMatching(/^line 2, column 1: .*unique/) }]);
  });
});
