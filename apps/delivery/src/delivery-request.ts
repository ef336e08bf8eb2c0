import type { ResultStreamName } from '@postern/journal';
import { isMalformedRequest } from '@postern/service';

/**
 * The request bodies of the delivery subjects (CONTRACT.md section 2). Each
 * reader returns the fields it needs or the field to correct; a body that is
 * not a JSON object has no field to name.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; field?: string };

export interface AwaitRequest {
  invocationId: string;
  /** null: the caller left it to the broker. */
  timeoutMs: number | null;
}

export interface PartRequest {
  invocationId: string;
  stream: ResultStreamName;
  seq: number;
}

export interface AckRequest {
  invocationId: string;
  resultDigest: string;
}

const STREAMS: readonly string[] = ['body', 'stdout', 'stderr'];

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isMalformedRequest(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function withId<T>(input: unknown, rest: (body: Record<string, unknown>, id: string) => Parsed<T>): Parsed<T> {
  if (!isPlainObject(input)) return { ok: false };
  const id = input['invocation_id'];
  // Any string is looked up: an id that cannot exist is NOT_FOUND like any other unknown id.
  if (typeof id !== 'string' || id.length === 0) return { ok: false, field: 'invocation_id' };
  return rest(input, id);
}

export function readInvocationRequest(input: unknown): Parsed<string> {
  return withId(input, (_body, id) => ({ ok: true, value: id }));
}

export function readAwaitRequest(input: unknown): Parsed<AwaitRequest> {
  return withId(input, (body, id): Parsed<AwaitRequest> => {
    const raw = body['timeout_ms'];
    if (raw === undefined || raw === null) return { ok: true, value: { invocationId: id, timeoutMs: null } };
    if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 0) return { ok: false, field: 'timeout_ms' };
    return { ok: true, value: { invocationId: id, timeoutMs: raw } };
  });
}

export function readPartRequest(input: unknown): Parsed<PartRequest> {
  return withId(input, (body, id): Parsed<PartRequest> => {
    const stream = body['stream'];
    if (typeof stream !== 'string' || !STREAMS.includes(stream)) return { ok: false, field: 'stream' };
    const seq = body['seq'];
    if (typeof seq !== 'number' || !Number.isInteger(seq)) return { ok: false, field: 'seq' };
    return { ok: true, value: { invocationId: id, stream: stream as ResultStreamName, seq } };
  });
}

export function readAckRequest(input: unknown): Parsed<AckRequest> {
  return withId(input, (body, id): Parsed<AckRequest> => {
    const digest = body['result_digest'];
    if (typeof digest !== 'string' || digest.length === 0) return { ok: false, field: 'result_digest' };
    return { ok: true, value: { invocationId: id, resultDigest: digest } };
  });
}
