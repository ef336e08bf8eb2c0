import type { Code } from './code.js';
import type { Outcome } from './outcome.js';
import type { Phase } from './phase.js';
import type { RetryRule } from './retry-rule.js';
import type { Stage } from './stage.js';

/**
 * The verdict of CONTRACT.md section 6 for one observation. It is what
 * REMOTE_RESPONSE_COMPLETE, REMOTE_OUTCOME_UNKNOWN and CONNECTION_FAILED
 * carry in `data`; `code: null` means success (no error).
 */
export interface Classification {
  phase: Phase;
  outcome: Outcome;
  code: Code | null;
  retry_rule: RetryRule;
  stage: Stage;
  retry_after_ms?: number;
  /** false when the stored result is not the whole body or output. */
  complete?: boolean;
  async_operation?: { status_url: string; job_id?: string };
  hop?: string;
  proxy_status?: unknown[];
  recovered?: boolean;
  intervention_required?: boolean;
  action_required?: string;
}
