import type { DispatchPolicy, ResultsPolicy, TargetLimits, TargetTimeouts } from '@postern/contract';

/** Values a policy file may leave out (CONTRACT.md section 8). */
export const DEFAULT_TIMEOUTS_MS: Readonly<TargetTimeouts> = Object.freeze({
  connect: 5000,
  response_headers: 30000,
  body: 30000,
});

export const DEFAULT_LIMITS: Readonly<TargetLimits> = Object.freeze({
  request_body_bytes: 262144,
  response_body_bytes: 8388608,
  response_read_bytes: 134217728,
  output_bytes: 8388608,
});

export const DEFAULT_DISPATCH: Readonly<DispatchPolicy> = Object.freeze({
  connect_attempts: 3,
  budget: 5,
  auto_retry: false,
  lease_ms: 30000,
});

export const DEFAULT_RESULTS: Readonly<ResultsPolicy> = Object.freeze({
  retention_s: 604800,
});

export const DEFAULT_IN_USE_STATUS = 409;
export const DEFAULT_MISMATCH_STATUS = 422;
