export { connectNats, parseServers } from './connect.js';
export type { ConnectNatsOptions } from './connect.js';
export { ensureJournal } from './ensure-journal.js';
export type { JournalResources, EnsureJournalOptions } from './ensure-journal.js';
export { journalNames, InvalidNameError } from './names.js';
export type { JournalNames } from './names.js';
export { Journal } from './journal.js';
export type { AppendResult, AppendNextResult, EventDraft, JournalOptions } from './journal.js';
export { readStream, readRange } from './stream-reader.js';
export type { ReadStreamOptions, ReadRangeOptions, StreamReader } from './stream-reader.js';
export { durableConsumer } from './durable-consumer.js';
export type { DurableConsumer, DurableConsumerOptions, HandleVerdict } from './durable-consumer.js';
export { kvCreateOnly, kvGetJson } from './kv-create-only.js';
export type { KvCreateResult } from './kv-create-only.js';
export { encodeKvKey, decodeKvKey } from './kv-key.js';
export { putPayload, getPayload } from './payloads.js';
export { sha256Hex, digestOf } from './digest.js';
export type { Digest } from './digest.js';
export { EVENT_TYPE_HEADER, MSG_ID_HEADER, decodeEvent } from './event-codec.js';
export { JournalUnavailableError, AppendConflictError, JournalDecodeError } from './errors.js';
export { isUnavailable, retryWhileUnavailable, unavailableBackoffMs } from './unavailable.js';
export type { RetryWhileUnavailableOptions } from './unavailable.js';
export {
  RESULT_PART_BYTES,
  partsOf,
  putHttpResult,
  putSshResult,
  readResultMeta,
  readResultStream,
  resultDigestOf,
  resultObjectName,
  resultPart,
  verifyStoredResult,
} from './result-store.js';
export type {
  HttpResultMeta,
  PutHttpResultInput,
  PutSshResultInput,
  ResultCheck,
  ResultMeta,
  ResultPart,
  ResultStreamMeta,
  ResultStreamName,
  SshResultMeta,
  SshStreamMeta,
  StoredResult,
} from './result-store.js';
