import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY_YAML } from './default-policy-yaml.js';
import { PolicyFileError } from './errors.js';
import { matchTarget } from './match-target.js';
import { parsePolicy } from './parse-policy.js';
import { ensurePolicyFile, loadPolicyFile } from './policy-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postern-policy-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('DEFAULT_POLICY_YAML', () => {
  it('parses, and allows loopback http only', () => {
    const result = parsePolicy(DEFAULT_POLICY_YAML);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    const policy = result.policy;
    expect(policy.targets.map((t) => t.match)).toEqual(['http://127.0.0.1:*', 'http://localhost:*']);
    expect(policy.targets.map((t) => t.retry_safe_methods)).toEqual([['GET', 'HEAD'], ['GET', 'HEAD']]);
    expect(policy.dispatch).toEqual({ connect_attempts: 3, budget: 5, auto_retry: false, lease_ms: 30000 });
    expect(policy.results).toEqual({ retention_s: 604800 });
    expect(matchTarget(policy, { kind: 'http', scheme: 'http', host: 'localhost', port: 3000 })).not.toBeNull();
    expect(matchTarget(policy, { kind: 'http', scheme: 'https', host: '127.0.0.1', port: 443 })).toBeNull();
    expect(matchTarget(policy, { kind: 'ssh', host: '127.0.0.1', port: 22 })).toBeNull();
    expect(matchTarget(policy, { kind: 'http', scheme: 'http', host: 'example.com', port: 80 })).toBeNull();
  });

  it('documents every key of the schema', () => {
    const keys = [
      'match', 'retry_safe_methods', 'callers_may_assert_idempotent', 'redirects', 'proxy', 'idempotency', 'header', 'scope',
      'retention_s', 'margin_s', 'in_use_status', 'mismatch_status', 'reconcile', 'timeouts_ms', 'limits', 'request_body_bytes',
      'response_body_bytes', 'response_read_bytes', 'output_bytes', 'response_headers', 'ca_file', 'host_keys',
      'idempotent_commands', 'connect_attempts', 'budget', 'auto_retry', 'lease_ms',
    ];
    // Each key sits on a line that explains it (commented out, or active with a comment).
    const comments = DEFAULT_POLICY_YAML.split('\n').filter((line) => line.includes('#')).join('\n');
    for (const key of keys) expect(comments, key).toMatch(new RegExp(`\\b${key}\\b`));
  });

  it('its commented example, uncommented, is itself a valid policy', () => {
    const example = DEFAULT_POLICY_YAML.split('\n')
      .filter((line) => /^# ( |targets:)/.test(line))
      .map((line) => line.slice(2))
      .join('\n')
      .replace('"SHA256:..."', `"SHA256:${'A'.repeat(43)}"`);
    const result = parsePolicy(example);
    expect(result.ok ? result.policy.targets.map((t) => t.match) : result.errors).toEqual(['https://api.example.com', 'ssh://10.0.0.5:22']);
  });
});

describe('ensurePolicyFile', () => {
  it('creates the default file and its directories once', async () => {
    const file = join(dir, 'a', 'b', 'postern.yaml');
    expect(await ensurePolicyFile(file)).toEqual({ created: true });
    expect(await readFile(file, 'utf8')).toBe(DEFAULT_POLICY_YAML);
    expect(await ensurePolicyFile(file)).toEqual({ created: false });
  });

  it('never overwrites an existing file', async () => {
    const file = join(dir, 'postern.yaml');
    await writeFile(file, 'targets: []\n');
    expect(await ensurePolicyFile(file)).toEqual({ created: false });
    expect(await readFile(file, 'utf8')).toBe('targets: []\n');
  });

  it('two concurrent calls create the file exactly once', async () => {
    const file = join(dir, 'postern.yaml');
    const results = await Promise.all([ensurePolicyFile(file), ensurePolicyFile(file)]);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });
});

describe('loadPolicyFile', () => {
  it('loads the created default', async () => {
    const file = join(dir, 'postern.yaml');
    await ensurePolicyFile(file);
    expect((await loadPolicyFile(file)).targets).toHaveLength(2);
  });

  it('throws PolicyFileError listing every defect and the file', async () => {
    const file = join(dir, 'postern.yaml');
    await writeFile(file, 'dispatch: {budget: 0}\nextra: 1\n');
    const error = await loadPolicyFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PolicyFileError);
    const failure = error as PolicyFileError;
    expect(failure.name).toBe('PolicyFileError');
    expect(failure.errors.map((e) => e.path)).toEqual(['extra', 'dispatch.budget']);
    expect(failure.message).toContain(file);
    expect(failure.message).toContain('dispatch.budget: must be');
    expect(failure.message).toContain('extra: unknown key');
  });

  it('a missing file is a PolicyFileError with the cause', async () => {
    const file = join(dir, 'absent.yaml');
    const error = (await loadPolicyFile(file).catch((e: unknown) => e)) as PolicyFileError;
    expect(error).toBeInstanceOf(PolicyFileError);
    expect(error.errors).toEqual([{ path: '(file)', reason: 'file not found' }]);
    expect((error.cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('resolves a relative ca_file against the policy file directory', async () => {
    const file = join(dir, 'postern.yaml');
    const absolute = join(dir, 'elsewhere', 'ca.pem');
    await writeFile(file, `targets:\n  - match: "https://a.test"\n    ca_file: ./ca.pem\n  - match: "https://b.test"\n    ca_file: "${absolute}"\n`);
    const policy = await loadPolicyFile(file);
    expect(policy.targets.map((t) => t.ca_file)).toEqual([join(dir, 'ca.pem'), absolute]);
  });
});
