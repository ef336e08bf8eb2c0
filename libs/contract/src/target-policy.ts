import type { HttpMethod } from './action-command.js';

/**
 * One target entry of the policy file (CONTRACT.md section 8), after parsing
 * and defaults. `libs/policy` reads the YAML and produces this; the pure core
 * decides with it.
 */
export interface IdempotencyContract {
  header: string;
  scope: string;
  retention_s: number;
  margin_s: number;
  in_use_status: number;
  mismatch_status: number;
}

export interface TargetLimits {
  request_body_bytes: number;
  response_body_bytes: number;
  response_read_bytes: number;
  output_bytes: number;
}

export interface TargetTimeouts {
  connect: number;
  response_headers: number;
  body: number;
}

export interface TargetPolicy {
  /** The `match` string as written: an origin (`https://host[:port|:*]`) or `ssh://host[:port|:*]`. */
  match: string;
  retry_safe_methods: HttpMethod[];
  callers_may_assert_idempotent: boolean;
  redirects: 'none' | 'same_origin';
  proxy?: string;
  idempotency?: IdempotencyContract;
  reconcile?: Record<string, unknown>;
  timeouts_ms: TargetTimeouts;
  limits: TargetLimits;
  response_headers: string[];
  ca_file?: string;
  host_keys: string[];
  idempotent_commands: string[];
}

export interface DispatchPolicy {
  connect_attempts: number;
  budget: number;
  auto_retry: boolean;
  lease_ms: number;
}

export interface ResultsPolicy {
  retention_s: number;
}

export interface Policy {
  targets: TargetPolicy[];
  dispatch: DispatchPolicy;
  results: ResultsPolicy;
}

/** Non-secret credential metadata as published to KV `<prefix>_credentials` (CONTRACT.md section 7). */
export const CredentialType = {
  http_bearer: 'http_bearer',
  http_basic: 'http_basic',
  http_header: 'http_header',
  http_query: 'http_query',
  ssh_key: 'ssh_key',
  ssh_password: 'ssh_password',
} as const;
export type CredentialType = (typeof CredentialType)[keyof typeof CredentialType];

export interface CredentialMeta {
  id: string;
  version: number;
  type: CredentialType;
  scope: string[];
  user?: string;
  header_name?: string;
  param?: string;
  approval: 'none' | 'per_call';
  created_at: string;
  revoked?: boolean;
}
