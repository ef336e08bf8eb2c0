import type { CredentialType } from './target-policy.js';

/**
 * The credential as the credential service releases it to the attempt that
 * holds the lease (`credentials.release`, service-only), beside the sealed
 * secret: what the dispatcher needs to inject it, nothing secret.
 */
export interface ReleasedCredential {
  id: string;
  version: number;
  type: CredentialType;
  injection: CredentialType;
  user?: string;
  header_name?: string;
  param?: string;
}
