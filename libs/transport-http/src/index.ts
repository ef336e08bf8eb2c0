export { openConnection, originOf } from './connect.js';
export { HttpConnection } from './http-connection.js';
export { resolveAndConnect, withDeadline, errorCode, SetupStageError } from './net-connect.js';
export type { AbortErrorFactory, NetSetupFailure, ResolveAndConnectOptions } from './net-connect.js';
export { timedStage, stageTiming } from './stage-timing.js';
export { ConnectionPool } from './connection-pool.js';
export { sendRequest } from './exchange.js';
export { ResponseFramingParser } from './response-framing.js';
export type { FramingState, ResponseFramingOptions } from './response-framing.js';
export { injectCredential, secretForms, redact, redactText, InjectionModeError } from './injection.js';
export type { InjectionCredential, InjectableRequest } from './injection.js';
export { StreamRedactor } from './stream-redactor.js';
export {
  ALLOWED_RESPONSE_HEADERS,
  filterResponseHeaders,
  headerValue,
  parseRetryAfter,
  parseProxyStatus,
} from './response-headers.js';
export type { ProxyStatusEntry } from './response-headers.js';
export { ConnectAbortedError, ConnectionSpentError } from './errors.js';
export type {
  HttpTarget,
  ResolvedAddress,
  Lookup,
  ConnectOptions,
  StageTiming,
  ConnectResult,
  HttpRequest,
  RequestSentFlags,
  ExchangeOptions,
  BodyFraming,
  BrokerTimeout,
  ExchangeEnd,
  HttpExchangeReport,
} from './types.js';
