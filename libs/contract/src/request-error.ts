import { Code } from './code.js';
import { CODE_PHASE } from './code-phase.js';
import { MESSAGES } from './messages.js';
import { Outcome } from './outcome.js';
import { Phase } from './phase.js';
import type { ErrorReply, ErrorView } from './record-view.js';
import { Retry } from './retry.js';

/** Retry of errors that are about a request, not an invocation's remote side. */
const REQUEST_RETRY: Partial<Record<Code, Retry>> = {
  [Code.NOT_FOUND]: Retry.never,
  [Code.ALREADY_RESOLVED]: Retry.never,
  [Code.RETRY_NOT_ALLOWED]: Retry.never,
  [Code.RESULT_EXPIRED]: Retry.never,
  [Code.APPROVAL_DENIED]: Retry.never,
  [Code.CREDENTIAL_DECRYPT_FAILED]: Retry.never,
};

/** Default `field` where the code names one. */
const REQUEST_FIELD: Partial<Record<Code, string>> = {
  [Code.IDEMPOTENCY_MISMATCH]: 'client_request_id',
};

/**
 * The body of a reply to a request that is not about one invocation
 * (CONTRACT.md section 2): BAD_REQUEST, NOT_FOUND, a reused
 * client_request_id, DIGEST_MISMATCH and the like. Nothing was sent, so the
 * outcome is `not_attempted` unless `overrides` says what the record holds.
 */
export function requestError(
  code: Code,
  message?: string,
  field?: string,
  overrides?: Partial<Pick<ErrorView, 'phase' | 'outcome' | 'retry' | 'action_required'>>,
): ErrorReply {
  const error: ErrorView = {
    code,
    phase: overrides?.phase ?? CODE_PHASE[code] ?? Phase.validation,
    outcome: overrides?.outcome ?? Outcome.not_attempted,
    retry: overrides?.retry ?? REQUEST_RETRY[code] ?? Retry.after_correction,
    message: message ?? MESSAGES[code],
  };
  const f = field ?? REQUEST_FIELD[code];
  if (f !== undefined) error.field = f;
  const actionRequired = overrides?.action_required ?? (code === Code.VAULT_LOCKED ? 'vault_unlock' : undefined);
  if (actionRequired !== undefined) error.action_required = actionRequired;
  return { error };
}
