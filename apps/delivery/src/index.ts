export { DeliveryModule } from './delivery.module.js';
export type { DeliveryModuleOptions } from './delivery.module.js';
export { DeliveryController } from './delivery.controller.js';
export {
  DEFAULT_TUNING,
  DELIVERY_CLOCK,
  DELIVERY_CONFIG,
  DELIVERY_DURABLE,
  DELIVERY_JOURNAL,
  DELIVERY_LOG,
  DELIVERY_POLICY,
  DELIVERY_PREFIX,
  DELIVERY_RESOURCES,
  DELIVERY_SUBJECTS,
  DELIVERY_TUNING,
  deliveryQueue,
} from './delivery.constants.js';
export type { Clock, DeliveryTuning } from './delivery.constants.js';
export { AwaitAction } from './await-action.js';
export { FetchResult } from './fetch-result.js';
export { ResultPartAction } from './result-part.js';
export { AckResult } from './ack-result.js';
export { ResultCommitHandler } from './result-commit.handler.js';
export { ResultReader } from './result-reader.js';
export type { CommittedResult, Loaded } from './result-reader.js';
export { RecordReader } from './record-reader.js';
export type { LoadedRecord } from './record-reader.js';
export {
  awaitIsOver,
  awaitsVerification,
  commitEventOf,
  deliveredEventOf,
  foldHistory,
  isStoreFailure,
  resultsSettled,
  settlementOf,
  viewOf,
} from './result-history.js';
export type { FoldedHistory } from './result-history.js';
export { checkStoredResult, commitDraft, storeFailureDraft, StoreFailure } from './result-commit.js';
export type { StoreCheck } from './result-commit.js';
export { notCommitted, storeFailed } from './result-errors.js';
export { resultExpired, resultExpiresAtMs } from './retention.js';
export { inline, isHttpMeta, partView, resultView } from './result-view.js';
export type {
  HttpResultView,
  InlineBytes,
  InlineStreams,
  ResultPartView,
  ResultView,
  ResultViewInput,
  SshResultView,
} from './result-view.js';
export {
  readAckRequest,
  readAwaitRequest,
  readInvocationRequest,
  readPartRequest,
} from './delivery-request.js';
export type { AckRequest, AwaitRequest, Parsed, PartRequest } from './delivery-request.js';
export { EventSignal } from './event-signal.js';
export { StreamCache } from './stream-cache.js';
export { DeliveryBusyError, DeliveryConfigError } from './errors.js';
