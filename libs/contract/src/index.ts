export { Action, ACTIONS, HttpMethod, HTTP_METHODS } from './action-command.js';
export type { ActionCommand, BodyInput, HttpSpec, SshSpec, StdinInput } from './action-command.js';
export { AnomalyReason, ANOMALY_REASONS } from './anomaly.js';
export type { Anomaly } from './anomaly.js';
export { autoRetryOf, backoffMs, retryNotBefore } from './auto-retry.js';
export type { ScheduledRetry } from './auto-retry.js';
export type { Binding, BindingIdempotency } from './binding.js';
export { canonicalJson } from './canonical-json.js';
export type { Classification } from './classification.js';
export { classify } from './classify.js';
export { REDACTED, summarizeCommand } from './command-summary.js';
export type { BodySummary, CommandSummary } from './command-summary.js';
export { Code, CODES } from './code.js';
export { CODE_PHASE } from './code-phase.js';
export { decide, Verdict, VERDICTS } from './decide.js';
export type { Operation } from './decide.js';
export { ContractErrorCode, ContractInputError } from './errors.js';
export { EventType, EVENT_TYPES } from './event-type.js';
export { evolve } from './evolve.js';
export type { EvolveResult } from './evolve.js';
export { EvidenceSource, EVIDENCE_SOURCES } from './evidence-source.js';
export { initialState } from './invocation-state.js';
export type { AttemptState, EvidenceState, InvocationState, PendingRedirect } from './invocation-state.js';
export { INVOCATION_ID_PATTERN, INVOCATION_ID_PREFIX, isInvocationId, newInvocationId } from './invocation-id.js';
export { ServiceName } from './journal-event.js';
export type { JournalEvent, StoredEvent } from './journal-event.js';
export { leaseIsLive, nextLease, renewedLease } from './lease.js';
export type { Lease } from './lease.js';
export { MESSAGES } from './messages.js';
export { resourceNames, subjects } from './names.js';
export type { ResourceNames, Subjects } from './names.js';
export { SetupFailure, SETUP_FAILURES } from './observation.js';
export type {
  BudgetExhaustedObservation,
  CallerCancelledObservation,
  ContractStatuses,
  HttpObservation,
  Observation,
  PreflightObservation,
  RecoveryObservation,
  ResultDeliveryFailedObservation,
  ResultStoreFailedObservation,
  SetupObservation,
  SshObservation,
} from './observation.js';
export { Outcome, OUTCOMES } from './outcome.js';
export { decodedBodyBytes, parseActionCommand, readClientRequestId } from './parse-action-command.js';
export type { ParseResult } from './parse-action-command.js';
export { Phase, PHASES } from './phase.js';
export {
  buildBinding,
  checkPreflight,
  forbiddenHeaders,
  injectionSupported,
  knownIdempotent,
  normalizeTarget,
} from './preflight.js';
export type { BuildBindingInput, KnownIdempotent, NormalizedTarget, PreflightInput } from './preflight.js';
export { Status } from './record-view.js';
export type { AttemptRow, ErrorReply, ErrorView, Evidence, IdempotencyEvidence, RecordView } from './record-view.js';
export { requestError } from './request-error.js';
export { Retry, RETRIES } from './retry.js';
export { DeferredRetry, DEFERRED_RETRIES, isRetryRule, resolveRetry } from './retry-rule.js';
export type { RetryContext, RetryRule } from './retry-rule.js';
export { Stage, STAGES } from './stage.js';
export { CredentialType } from './target-policy.js';
export type { ReleasedCredential } from './released-credential.js';
export type {
  CredentialMeta,
  DispatchPolicy,
  IdempotencyContract,
  Policy,
  ResultsPolicy,
  TargetLimits,
  TargetPolicy,
  TargetTimeouts,
} from './target-policy.js';
export { isValidSshHost, normalizeHost, parseHttpUrl } from './target-syntax.js';
export type { HttpUrlParts } from './target-syntax.js';
export { toRecordView } from './to-record-view.js';
export { base64DecodedLength, isStandardBase64, utf8Length } from './utf8-length.js';
export type { ValidationFailure } from './validation-failure.js';
