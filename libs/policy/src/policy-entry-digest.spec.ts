import { describe, expect, it } from 'vitest';
import type { DispatchPolicy, TargetPolicy } from '@postern/contract';
import { policyEntryDigest } from './policy-entry-digest.js';

const target = (): TargetPolicy => ({
  match: 'https://api.example.com',
  retry_safe_methods: ['GET', 'HEAD'],
  callers_may_assert_idempotent: false,
  redirects: 'none',
  idempotency: { header: 'Idempotency-Key', scope: 'payments.create', retention_s: 86400, margin_s: 3600, in_use_status: 409, mismatch_status: 422 },
  timeouts_ms: { connect: 5000, response_headers: 30000, body: 30000 },
  limits: { request_body_bytes: 262144, response_body_bytes: 8388608, response_read_bytes: 134217728, output_bytes: 8388608 },
  response_headers: [],
  host_keys: [],
  idempotent_commands: [],
});
const dispatch = (): DispatchPolicy => ({ connect_attempts: 3, budget: 5, auto_retry: false, lease_ms: 30000 });

describe('policyEntryDigest', () => {
  it('is sha256:<64 hex>', () => {
    expect(policyEntryDigest(target(), dispatch())).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('does not depend on key order', () => {
    const original = target();
    const reordered = Object.fromEntries(Object.entries(original).reverse()) as unknown as TargetPolicy;
    reordered.timeouts_ms = { body: 30000, response_headers: 30000, connect: 5000 };
    const reorderedDispatch = { lease_ms: 30000, auto_retry: false, budget: 5, connect_attempts: 3 };
    expect(Object.keys(reordered)[0]).not.toBe(Object.keys(original)[0]);
    expect(policyEntryDigest(reordered, reorderedDispatch)).toBe(policyEntryDigest(original, dispatch()));
  });

  it('changes when any field of the entry or dispatch changes', () => {
    const base = policyEntryDigest(target(), dispatch());
    const variants: [string, (t: TargetPolicy, d: DispatchPolicy) => void][] = [
      ['match', (t) => (t.match = 'https://api.example.com:8443')],
      ['retry_safe_methods', (t) => t.retry_safe_methods.push('PUT')],
      ['method order', (t) => t.retry_safe_methods.reverse()],
      ['callers_may_assert_idempotent', (t) => (t.callers_may_assert_idempotent = true)],
      ['redirects', (t) => (t.redirects = 'same_origin')],
      ['proxy', (t) => (t.proxy = 'http://p:3128')],
      ['idempotency.retention_s', (t) => t.idempotency && (t.idempotency.retention_s = 86401)],
      ['idempotency removed', (t) => delete t.idempotency],
      ['timeouts_ms.connect', (t) => (t.timeouts_ms.connect = 5001)],
      ['limits.output_bytes', (t) => (t.limits.output_bytes = 1)],
      ['response_headers', (t) => t.response_headers.push('x-a')],
      ['ca_file', (t) => (t.ca_file = '/ca.pem')],
      ['host_keys', (t) => t.host_keys.push('SHA256:x')],
      ['idempotent_commands', (t) => t.idempotent_commands.push('^a$')],
      ['reconcile', (t) => (t.reconcile = { command: 'x' })],
      ['dispatch.connect_attempts', (_t, d) => (d.connect_attempts = 4)],
      ['dispatch.budget', (_t, d) => (d.budget = 6)],
      ['dispatch.auto_retry', (_t, d) => (d.auto_retry = true)],
      ['dispatch.lease_ms', (_t, d) => (d.lease_ms = 1)],
    ];
    const seen = new Set([base]);
    for (const [name, change] of variants) {
      const t = target();
      const d = dispatch();
      change(t, d);
      const digest = policyEntryDigest(t, d);
      expect(digest, name).not.toBe(base);
      seen.add(digest);
    }
    expect(seen.size).toBe(variants.length + 1);
  });

  it('an undefined optional field is the same as an absent one', () => {
    const t = target();
    expect(policyEntryDigest({ ...t, proxy: undefined }, dispatch())).toBe(policyEntryDigest(t, dispatch()));
  });
});
