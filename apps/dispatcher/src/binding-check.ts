import { Action, canonicalJson, type Binding, type Policy, type TargetPolicy } from '@postern/contract';
import { digestOf } from '@postern/journal';
import { matchTarget, policyEntryDigest } from '@postern/policy';
import { targetOf } from './request-plan.js';
import { sshTargetOf } from './ssh-target.js';

type Address = Parameters<typeof matchTarget>[1];

function addressOf(binding: Binding): Address | null {
  if (binding.action === Action.ssh_exec) {
    const ssh = sshTargetOf(binding);
    return ssh === null ? null : { kind: 'ssh', host: ssh.host, port: ssh.port };
  }
  const target = targetOf(binding);
  return target === null ? null : { kind: 'http', scheme: target.target.scheme, host: target.target.host, port: target.target.port };
}

export type BindingCheck = { ok: true; entry: TargetPolicy; policy: Policy } | { ok: false; message: string };

/**
 * Just before an attempt: the binding is still the request that was
 * fingerprinted, and the policy in force still governs its target with the
 * same entry. Anything else is BINDING_CHANGED (CONTRACT.md section 6).
 */
export function checkBinding(binding: Binding, fingerprint: string, policy: Policy): BindingCheck {
  if (digestOf(canonicalJson(binding)) !== fingerprint) {
    return { ok: false, message: 'The bound request no longer matches its fingerprint.' };
  }
  const address = addressOf(binding);
  if (address === null) return { ok: false, message: 'The bound target is not an HTTP origin or an SSH target.' };
  const entry = matchTarget(policy, address);
  if (entry === null) return { ok: false, message: 'The policy no longer allows the bound target.' };
  if (entry.match !== binding.policy_match || policyEntryDigest(entry, policy.dispatch) !== binding.policy_digest) {
    return { ok: false, message: 'The policy entry for the bound target changed since validation.' };
  }
  return { ok: true, entry, policy };
}
