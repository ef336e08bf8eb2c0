import type { Action, HttpMethod } from './action-command.js';
import type { CredentialType } from './target-policy.js';

/** The remote idempotency contract as bound before dispatch. */
export interface BindingIdempotency {
  key: string;
  scope: string;
  header: string;
  /** accepted_at + retention_s − margin_s: after it a retry may not reuse the key. */
  expires_at: string;
  remote_contract: 'configured';
}

/**
 * The configuration snapshot an invocation is bound to (PREFLIGHT_VALIDATED
 * `data.binding`). The request fingerprint is a digest of its canonical JSON,
 * so every field here is part of what "the same request" means.
 */
export interface Binding {
  action: Action;
  /** `scheme://host:port/path?query` for HTTP, `ssh://host:port` for SSH. */
  target: string;
  /** The HTTP method; null for SSH. */
  method: HttpMethod | null;
  policy_match: string;
  policy_digest: string;
  credential: { id: string; version: number; type: CredentialType; injection: CredentialType };
  body_digest: string | null;
  idempotency: BindingIdempotency | null;
  known_idempotent: boolean;
  idempotent_assertion: 'honoured' | 'ignored' | null;
  budget: number;
  connect_attempts: number;
  auto_retry: boolean;
  lease_ms: number;
}
