import { describe, expect, it } from 'vitest';
import type { Policy } from '@postern/contract';
import { matchTarget, type TargetAddress } from './match-target.js';
import { parsePolicy } from './parse-policy.js';

function policyOf(...matches: string[]): Policy {
  const text = `targets:\n${matches.map((m) => `  - match: "${m}"\n`).join('')}`;
  const result = parsePolicy(text);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.policy;
}

const web = (scheme: 'http' | 'https', host: string, port: number): TargetAddress => ({ kind: 'http', scheme, host, port });
const shell = (host: string, port: number): TargetAddress => ({ kind: 'ssh', host, port });
const matched = (policy: Policy, target: TargetAddress) => matchTarget(policy, target)?.match ?? null;

describe('matchTarget', () => {
  it('an explicit port matches only that port', () => {
    const policy = policyOf('http://127.0.0.1:8080');
    expect(matched(policy, web('http', '127.0.0.1', 8080))).toBe('http://127.0.0.1:8080');
    expect(matched(policy, web('http', '127.0.0.1', 8081))).toBeNull();
  });

  it('* matches any port', () => {
    const policy = policyOf('http://127.0.0.1:*');
    for (const port of [1, 80, 8080, 65535]) expect(matched(policy, web('http', '127.0.0.1', port))).toBe('http://127.0.0.1:*');
  });

  it('no port in match means the scheme default port', () => {
    const policy = policyOf('https://api.example.com', 'http://api.example.com', 'ssh://10.0.0.5');
    expect(matched(policy, web('https', 'api.example.com', 443))).toBe('https://api.example.com');
    expect(matched(policy, web('https', 'api.example.com', 8443))).toBeNull();
    expect(matched(policy, web('http', 'api.example.com', 80))).toBe('http://api.example.com');
    expect(matched(policy, web('http', 'api.example.com', 443))).toBeNull();
    expect(matched(policy, shell('10.0.0.5', 22))).toBe('ssh://10.0.0.5');
    expect(matched(policy, shell('10.0.0.5', 2222))).toBeNull();
  });

  it('hosts compare case-insensitively, both ways', () => {
    const policy = policyOf('https://API.Example.com');
    expect(matched(policy, web('https', 'api.example.COM', 443))).toBe('https://API.Example.com');
  });

  it('the scheme must be exact', () => {
    const policy = policyOf('https://api.example.com:*');
    expect(matched(policy, web('http', 'api.example.com', 443))).toBeNull();
    expect(matched(policy, shell('api.example.com', 443))).toBeNull();
  });

  it('ssh and http entries for one host do not stand in for each other', () => {
    const policy = policyOf('ssh://127.0.0.1:*', 'http://127.0.0.1:8080');
    expect(matched(policy, shell('127.0.0.1', 8080))).toBe('ssh://127.0.0.1:*');
    expect(matched(policy, web('http', '127.0.0.1', 22))).toBeNull();
    expect(matched(policy, web('http', '127.0.0.1', 8080))).toBe('http://127.0.0.1:8080');
  });

  it('the first matching entry in file order wins', () => {
    const policy = policyOf('http://127.0.0.1:8080', 'http://127.0.0.1:*');
    expect(matchTarget(policy, web('http', '127.0.0.1', 8080))).toBe(policy.targets[0]);
    expect(matchTarget(policy, web('http', '127.0.0.1', 9090))).toBe(policy.targets[1]);
  });

  it('no wildcard or suffix matching of hosts', () => {
    const policy = policyOf('https://example.com');
    expect(matched(policy, web('https', 'api.example.com', 443))).toBeNull();
    expect(matched(policy, web('https', 'example.com.evil.test', 443))).toBeNull();
    expect(matched(policy, web('https', '*', 443))).toBeNull();
  });

  it('no entry matches: null; an empty policy allows nothing', () => {
    expect(matchTarget(policyOf('http://127.0.0.1:*'), web('http', '10.0.0.1', 80))).toBeNull();
    expect(matchTarget(policyOf(), web('http', '127.0.0.1', 80))).toBeNull();
  });

  it('IPv6 hosts match with or without brackets', () => {
    const policy = policyOf('http://[::1]:*');
    expect(matched(policy, web('http', '[::1]', 8080))).toBe('http://[::1]:*');
    expect(matched(policy, shell('::1', 22))).toBeNull();
    expect(matched(policy, web('http', '0:0:0:0:0:0:0:1', 8080))).toBe('http://[::1]:*');
  });

  it('malformed target hosts and ports match nothing', () => {
    const policy = policyOf('http://127.0.0.1:*');
    expect(matchTarget(policy, web('http', '127.0.0.1', 0))).toBeNull();
    expect(matchTarget(policy, web('http', '127.0.0.1', 70000))).toBeNull();
    expect(matchTarget(policy, web('http', '127.0.0.1', 1.5))).toBeNull();
    expect(matchTarget(policy, web('http', '', 80))).toBeNull();
    expect(matchTarget(policy, web('http', '127.0.0.1/x', 80))).toBeNull();
  });
});

describe('matchTarget: host spelling', () => {
  it('a trailing dot names the same host', () => {
    const policy = policyOf('ssh://deploy.example.com');
    expect(matched(policy, shell('deploy.example.com.', 22))).toBe('ssh://deploy.example.com');
    expect(matched(policyOf('https://api.example.com.'), web('https', 'api.example.com', 443))).toBe('https://api.example.com.');
  });

  it('IPv4 shorthand and case variants of the same address match', () => {
    const policy = policyOf('http://127.0.0.1:*');
    expect(matched(policy, web('http', '127.1', 80))).toBe('http://127.0.0.1:*');
  });
});
