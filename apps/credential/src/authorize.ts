import { Code, injectionSupported, MESSAGES, type Binding, type CredentialMeta, type CredentialType } from '@postern/contract';
import { parseScope, scopeCovers, targetAddress } from './scope.js';

export type VaultReadiness = 'uninitialized' | 'locked' | 'ready';

export interface AuthorizeInput {
  binding: Binding;
  vault: VaultReadiness;
  /** The credential's current metadata, or null when the vault has no such id. */
  current: CredentialMeta | null;
  /**
   * Whether the bound version decrypts. The shell tries it only when the vault
   * is ready and the version exists; otherwise pass null.
   */
  decrypts: boolean | null;
}

export type Authorization =
  | { kind: 'authorized'; credential: { id: string; version: number; injection: CredentialType } }
  | { kind: 'rejected'; code: Code; message: string; action_required?: string }
  | { kind: 'awaiting_approval' };

const reject = (code: Code, message: string = MESSAGES[code], action_required?: string): Authorization =>
  action_required === undefined ? { kind: 'rejected', code, message } : { kind: 'rejected', code, message, action_required };

/**
 * The credential step of an invocation (CONTRACT.md section 6,
 * credential_injection rows). Checks run from the broadest cause to the
 * narrowest: a locked vault hides everything else; a credential that is gone
 * makes scope moot; a type that cannot serve the action is reported before
 * its scope (an SSH credential never has an HTTP scope, so the scope check
 * would hide the real defect); decryption is tried last because it needs all
 * the rest. A per-call approval is not decided here (a later issue adds
 * approvals): the invocation waits, it is never authorized without one.
 */
export function authorize(input: AuthorizeInput): Authorization {
  const { binding, current } = input;
  if (input.vault !== 'ready') {
    return reject(
      Code.VAULT_LOCKED,
      input.vault === 'uninitialized' ? 'The vault is not initialized; an operator must create and unlock it.' : MESSAGES[Code.VAULT_LOCKED],
      'vault_unlock',
    );
  }
  const bound = binding.credential;
  if (current === null || current.revoked === true || current.version !== bound.version || current.type !== bound.type) {
    return reject(Code.CREDENTIAL_MISSING);
  }
  if (!injectionSupported(binding.action, current.type) || bound.injection !== current.type) {
    return reject(Code.INJECTION_MODE_UNSUPPORTED);
  }
  const address = targetAddress(binding.target);
  const covered =
    address !== null &&
    current.scope.some((text) => {
      const parsed = parseScope(text);
      return parsed.ok && scopeCovers(parsed.scope, address, current.user);
    });
  if (!covered) return reject(Code.CREDENTIAL_SCOPE_MISMATCH);
  if (input.decrypts !== true) return reject(Code.CREDENTIAL_DECRYPT_FAILED);
  if (current.approval === 'per_call') return { kind: 'awaiting_approval' };
  return { kind: 'authorized', credential: { id: current.id, version: current.version, injection: current.type } };
}
