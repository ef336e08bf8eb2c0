export { DispatcherModule } from './dispatcher.module.js';
export { DispatcherService } from './dispatcher.service.js';
export type { DispatcherRuntimeOptions } from './dispatcher.service.js';
export { readDispatcherConfig, newInstanceId } from './dispatcher-config.js';
export type { DispatcherConfig } from './dispatcher-config.js';
export {
  DISPATCHER_CONFIG,
  DISPATCHER_DURABLE,
  DISPATCHER_LOG,
  DISPATCHER_OPTIONS,
  DISPATCHER_POLICY,
  DISPATCHER_RESOURCES,
} from './dispatcher.constants.js';
export { DispatchHandler } from './dispatch.handler.js';
export { Recovery } from './recovery.js';
export { AttemptRun } from './attempt-run.js';
export { AttemptExchange } from './attempt-exchange.js';
export type { ExchangeContext } from './exchange-context.js';
export { AttemptJournal } from './attempt-journal.js';
export type { DraftBuilder } from './attempt-journal.js';
export { resultToStore } from './stored-result.js';
export { AttemptLease } from './attempt-lease.js';
export type { AcquireResult, LeaseClaim } from './attempt-lease.js';
export { LeaseStore } from './lease-store.js';
export type { LeaseEntry } from './lease-store.js';
export { FaultPoint, FAULT_POINTS, noFaults, processFaultSwitch } from './fault-point.js';
export type { FaultSwitch } from './fault-point.js';
export { scheduleAutoRetry } from './auto-retry-schedule.js';
export { planInvocation, foldHistory, openAttempt, hasCancel } from './invocation-plan.js';
export type { InvocationPlan, SkipReason } from './invocation-plan.js';
export { observationFromReport, remoteRequestId } from './observation-from-report.js';
export type { ResponseFacts } from './observation-from-report.js';
export { responseFacts } from './response-facts.js';
export { planRequest, targetOf, callerHeadersOf } from './request-plan.js';
export type { BoundTarget, RequestPlanInput } from './request-plan.js';
export { checkBinding } from './binding-check.js';
export type { BindingCheck } from './binding-check.js';
export {
  announcedFraming,
  classificationData,
  completeData,
  diagnosticOf,
  exchangeFlags,
  requestSentData,
  responseStartedData,
  unknownData,
} from './attempt-evidence.js';
export { requestSecret } from './secret-release.js';
export type { ReleaseRequest, ReleaseResult } from './secret-release.js';
export { dispatcherDraft, writerName } from './dispatcher-event.js';
export { stdoutLog, silentLog, errorName } from './dispatcher-log.js';
export type { DispatcherLog, LogFields } from './dispatcher-log.js';
export type { DispatcherDeps } from './dispatcher-deps.js';
export { SecretReleaseError } from './errors.js';
