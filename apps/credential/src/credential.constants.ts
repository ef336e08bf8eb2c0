import { subjects } from '@postern/contract';
import { readPrefix } from '@postern/service';

/** Injection tokens of the credential module. */
export const CREDENTIAL_CONFIG = Symbol('CREDENTIAL_CONFIG');
export const CREDENTIAL_RESOURCES = Symbol('CREDENTIAL_RESOURCES');
export const CREDENTIAL_JOURNAL = Symbol('CREDENTIAL_JOURNAL');
export const CREDENTIAL_LOG = Symbol('CREDENTIAL_LOG');
export const CREDENTIAL_VAULT_OPTIONS = Symbol('CREDENTIAL_VAULT_OPTIONS');

/**
 * The subject prefix, read once when this module is first imported. Handler
 * subjects are fixed by decorators at class definition; `CredentialModule.register`
 * refuses a config whose prefix differs, so the two never drift apart.
 */
export const CREDENTIAL_PREFIX = readPrefix(process.env);
export const CREDENTIAL_SUBJECTS = subjects(CREDENTIAL_PREFIX);

/** Durable consumer role: replicas share it and split PREFLIGHT_VALIDATED events. */
export const CREDENTIAL_DURABLE = 'credential';

export function credentialQueue(prefix: string): string {
  return `${prefix}_credential`;
}
