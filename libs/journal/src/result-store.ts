import { canonicalJson } from '@postern/contract';
import { digestOf, type Digest } from './digest.js';
import type { JournalResources } from './ensure-journal.js';
import { JournalUnavailableError } from './errors.js';

/**
 * The result store (object store `<prefix>_results`): per attempt, one object
 * per stream of bytes (`<invocation_id>.<attempt>.body`, `.stdout`,
 * `.stderr`) and one JSON metadata object (`.meta`) that holds every
 * stream's digest, so the digest of the metadata covers everything stored.
 */

/** Parts are 256 KiB slices of a stored stream, numbered from 1. */
export const RESULT_PART_BYTES = 262_144;

export type ResultStreamName = 'body' | 'stdout' | 'stderr';

export interface ResultStreamMeta {
  bytes: number;
  digest: Digest;
  parts: number;
}

/** SSH streams say on their own whether they are the whole output. */
export interface SshStreamMeta extends ResultStreamMeta {
  complete: boolean;
}

/**
 * An HTTP result. A result with `complete: false` keeps status and headers
 * only: `streams` is then empty, because a partial body is never a result.
 */
export interface HttpResultMeta {
  status: number;
  headers: Record<string, string>;
  complete: boolean;
  streams: { body?: ResultStreamMeta };
}

export interface SshResultMeta {
  exit_status: number | null;
  exit_signal: string | null;
  complete: boolean;
  streams: { stdout?: SshStreamMeta; stderr?: SshStreamMeta };
}

export type ResultMeta = HttpResultMeta | SshResultMeta;

export interface PutHttpResultInput {
  invocation_id: string;
  attempt: number;
  status: number;
  /** Already allow-listed and redacted by the caller. */
  headers: Record<string, string>;
  complete: boolean;
  /** Already redacted; ignored (not stored) when `complete` is false. */
  body: Uint8Array | null;
}

export interface PutSshResultInput {
  invocation_id: string;
  attempt: number;
  exit_status: number | null;
  exit_signal: string | null;
  complete: boolean;
  stdout: { bytes: Uint8Array; complete: boolean } | null;
  stderr: { bytes: Uint8Array; complete: boolean } | null;
}

export interface StoredResult {
  /** `<invocation_id>.<attempt>`: the prefix of every object of the result. */
  result_object: string;
  result_digest: Digest;
  /** The body's own digest and size, null when no body is stored. */
  body_digest: Digest | null;
  body_bytes: number;
}

export interface ResultPart {
  data: Uint8Array;
  part_digest: Digest;
  last: boolean;
  /** On the last part only. */
  total_bytes?: number;
  /** On the last part only: the whole stream's digest. */
  digest?: Digest;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function resultObjectName(invocationId: string, attempt: number): string {
  return `${invocationId}.${attempt}`;
}

/** One digest over the metadata, which holds the digest of every stream. */
export function resultDigestOf(meta: ResultMeta): Digest {
  return digestOf(canonicalJson(meta));
}

export function partsOf(bytes: number): number {
  return Math.ceil(bytes / RESULT_PART_BYTES);
}

function streamMeta(bytes: Uint8Array): ResultStreamMeta {
  return { bytes: bytes.byteLength, digest: digestOf(bytes), parts: partsOf(bytes.byteLength) };
}

/** Part `seq` (from 1) of a stream, or null past its end. An empty stream has one empty last part. */
export function resultPart(bytes: Uint8Array, seq: number): ResultPart | null {
  const total = Math.max(1, partsOf(bytes.byteLength));
  if (!Number.isInteger(seq) || seq < 1 || seq > total) return null;
  const start = (seq - 1) * RESULT_PART_BYTES;
  const data = bytes.subarray(start, Math.min(bytes.byteLength, start + RESULT_PART_BYTES));
  const part: ResultPart = { data, part_digest: digestOf(data), last: seq === total };
  if (part.last) {
    part.total_bytes = bytes.byteLength;
    part.digest = digestOf(bytes);
  }
  return part;
}

async function putObject(res: JournalResources, name: string, bytes: Uint8Array): Promise<void> {
  try {
    await res.objects.results.putBlob({ name }, bytes);
  } catch (err) {
    throw new JournalUnavailableError(`could not store result object ${name}`, { cause: err });
  }
}

async function getObject(res: JournalResources, name: string): Promise<Uint8Array | null> {
  let bytes: Uint8Array | null;
  try {
    bytes = await res.objects.results.getBlob(name);
  } catch (err) {
    throw new JournalUnavailableError(`could not read result object ${name}`, { cause: err });
  }
  if (bytes === null) return null;
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Streams first, metadata last: a metadata object names only bytes that are already stored. */
async function putMeta(res: JournalResources, resultObject: string, meta: ResultMeta): Promise<Digest> {
  await putObject(res, `${resultObject}.meta`, encoder.encode(canonicalJson(meta)));
  return resultDigestOf(meta);
}

/** Stores an HTTP result; the dispatcher calls this before it appends REMOTE_RESPONSE_COMPLETE. */
export async function putHttpResult(res: JournalResources, input: PutHttpResultInput): Promise<StoredResult> {
  const resultObject = resultObjectName(input.invocation_id, input.attempt);
  const body = input.complete ? input.body : null;
  const meta: HttpResultMeta = { status: input.status, headers: { ...input.headers }, complete: input.complete, streams: {} };
  if (body !== null) {
    await putObject(res, `${resultObject}.body`, body);
    meta.streams.body = streamMeta(body);
  }
  const resultDigest = await putMeta(res, resultObject, meta);
  return {
    result_object: resultObject,
    result_digest: resultDigest,
    body_digest: meta.streams.body?.digest ?? null,
    body_bytes: meta.streams.body?.bytes ?? 0,
  };
}

/** Stores an SSH result (exit and both outputs), the same way as HTTP. */
export async function putSshResult(res: JournalResources, input: PutSshResultInput): Promise<StoredResult> {
  const resultObject = resultObjectName(input.invocation_id, input.attempt);
  const meta: SshResultMeta = {
    exit_status: input.exit_status,
    exit_signal: input.exit_signal,
    complete: input.complete,
    streams: {},
  };
  for (const name of ['stdout', 'stderr'] as const) {
    const stream = input[name];
    if (stream === null) continue;
    await putObject(res, `${resultObject}.${name}`, stream.bytes);
    meta.streams[name] = { ...streamMeta(stream.bytes), complete: stream.complete };
  }
  const resultDigest = await putMeta(res, resultObject, meta);
  return { result_object: resultObject, result_digest: resultDigest, body_digest: null, body_bytes: 0 };
}

/** The metadata of a stored result, or null when there is none. */
export async function readResultMeta(res: JournalResources, resultObject: string): Promise<ResultMeta | null> {
  const bytes = await getObject(res, `${resultObject}.meta`);
  if (bytes === null) return null;
  try {
    return JSON.parse(decoder.decode(bytes)) as ResultMeta;
  } catch {
    // Unreadable metadata cannot vouch for anything: treat it like a missing result.
    return null;
  }
}

/** The stored bytes of one stream, or null when absent. The caller checks them against the metadata. */
export async function readResultStream(
  res: JournalResources,
  resultObject: string,
  stream: ResultStreamName,
): Promise<Uint8Array | null> {
  return getObject(res, `${resultObject}.${stream}`);
}

export type ResultCheck =
  | { ok: true; meta: ResultMeta }
  | { ok: false; reason: 'missing' | 'digest_mismatch' | 'stream_missing' | 'stream_mismatch' };

/**
 * Re-reads a stored result and checks it against the digest the journal
 * recorded: the metadata's digest, then every stream against its metadata.
 */
export async function verifyStoredResult(res: JournalResources, resultObject: string, expected: string): Promise<ResultCheck> {
  const meta = await readResultMeta(res, resultObject);
  if (meta === null) return { ok: false, reason: 'missing' };
  if (resultDigestOf(meta) !== expected) return { ok: false, reason: 'digest_mismatch' };
  for (const [name, info] of Object.entries(meta.streams) as [ResultStreamName, ResultStreamMeta | undefined][]) {
    if (info === undefined) continue;
    const bytes = await readResultStream(res, resultObject, name);
    if (bytes === null) return { ok: false, reason: 'stream_missing' };
    if (bytes.byteLength !== info.bytes || digestOf(bytes) !== info.digest) return { ok: false, reason: 'stream_mismatch' };
  }
  return { ok: true, meta };
}
