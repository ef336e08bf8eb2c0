export { openConnection, originOf } from './connect.js';
export { HttpConnection } from './http-connection.js';
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
  ConnectOptions,
  ConnectResult,
  HttpRequest,
  RequestSentFlags,
  ExchangeOptions,
  BodyFraming,
  BrokerTimeout,
  ExchangeEnd,
  HttpExchangeReport,
} from './types.js';
