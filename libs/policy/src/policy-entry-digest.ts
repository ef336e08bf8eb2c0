import { createHash } from 'node:crypto';
import { canonicalJson } from '@postern/contract';
import type { DispatchPolicy, TargetPolicy } from '@postern/contract';

/**
 * `sha256:<hex>` of the policy entry an invocation is bound to, together with
 * the dispatch section (connect attempts, budget, auto retry and lease all
 * change what the broker may do with it). Any change to either gives a new
 * digest, which is how a changed binding is detected; key order does not.
 */
export function policyEntryDigest(target: TargetPolicy, dispatch: DispatchPolicy): string {
  const text = canonicalJson({ target, dispatch });
  return `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
}
