import { describe, expect, it } from 'vitest';
import { checkBinding } from './binding-check.js';
import { fingerprintOf, fixtureBinding, fixturePolicy, FIXTURE_POLICY_YAML } from './binding.fixture.js';

describe('checkBinding', () => {
  const binding = fixtureBinding();
  const fingerprint = fingerprintOf(binding);

  it('accepts a binding that still matches its fingerprint and policy entry', () => {
    const check = checkBinding(binding, fingerprint, fixturePolicy());
    expect(check.ok).toBe(true);
    if (check.ok) expect(check.entry.match).toBe('http://127.0.0.1:*');
  });

  it('refuses a binding that does not match its fingerprint', () => {
    expect(checkBinding({ ...binding, method: 'DELETE' }, fingerprint, fixturePolicy())).toMatchObject({ ok: false });
  });

  it('refuses when the policy no longer allows the target', () => {
    const policy = fixturePolicy(FIXTURE_POLICY_YAML.replace('http://127.0.0.1:*', 'http://127.0.0.2:*'));
    expect(checkBinding(binding, fingerprint, policy)).toMatchObject({ ok: false, message: expect.stringContaining('no longer allows') });
  });

  it('refuses when the governing entry or the dispatch section changed', () => {
    const policy = fixturePolicy(FIXTURE_POLICY_YAML.replace('retry_safe_methods: [GET]', 'retry_safe_methods: [GET, HEAD]'));
    expect(checkBinding(binding, fingerprint, policy)).toMatchObject({ ok: false, message: expect.stringContaining('changed') });
    const dispatch = fixturePolicy(FIXTURE_POLICY_YAML.replace('budget: 2', 'budget: 3'));
    expect(checkBinding(binding, fingerprint, dispatch).ok).toBe(false);
  });
});
