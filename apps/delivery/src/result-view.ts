import type { Outcome } from '@postern/contract';
import type { HttpResultMeta, ResultMeta, ResultPart, ResultStreamName, SshResultMeta } from '@postern/journal';

/** CONTRACT.md section 5. Bytes travel as standard base64. */
export interface InlineBytes {
  base64: string;
}

export interface HttpResultView {
  status: number;
  headers: Record<string, string>;
  /** Omitted over 256 KiB (read it with `results.part`) and for an incomplete result. */
  body?: InlineBytes;
  body_bytes: number;
  parts: number;
}

export interface SshResultView {
  exit_status: number | null;
  exit_signal: string | null;
  stdout?: InlineBytes;
  stderr?: InlineBytes;
  stdout_bytes: number;
  stderr_bytes: number;
  stdout_complete: boolean;
  stderr_complete: boolean;
  stdout_parts: number;
  stderr_parts: number;
}

export interface ResultView {
  invocation_id: string;
  outcome: Outcome;
  complete: boolean;
  result_digest: string;
  http: HttpResultView | null;
  ssh: SshResultView | null;
}

export interface ResultPartView {
  invocation_id: string;
  stream: ResultStreamName;
  seq: number;
  data: InlineBytes;
  part_digest: string;
  last: boolean;
  total_bytes?: number;
  digest?: string;
}

export function isHttpMeta(meta: ResultMeta): meta is HttpResultMeta {
  return 'status' in meta;
}

export function inline(bytes: Uint8Array): InlineBytes {
  return { base64: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64') };
}

/** Stream bytes the caller of `resultView` has read and verified, by stream; absent ones are not inlined. */
export type InlineStreams = Partial<Record<ResultStreamName, Uint8Array>>;

export interface ResultViewInput {
  invocationId: string;
  outcome: Outcome;
  resultDigest: string;
  meta: ResultMeta;
  inlined: InlineStreams;
}

export function resultView(input: ResultViewInput): ResultView {
  const { meta, inlined } = input;
  const base = {
    invocation_id: input.invocationId,
    outcome: input.outcome,
    complete: meta.complete,
    result_digest: input.resultDigest,
  };
  if (isHttpMeta(meta)) {
    return { ...base, http: httpView(meta, inlined), ssh: null };
  }
  return { ...base, http: null, ssh: sshView(meta, inlined) };
}

function httpView(meta: HttpResultMeta, inlined: InlineStreams): HttpResultView {
  const body = meta.streams.body;
  const view: HttpResultView = {
    status: meta.status,
    headers: { ...meta.headers },
    body_bytes: body?.bytes ?? 0,
    // A partial body is never a result: no parts either.
    parts: meta.complete && body !== undefined ? Math.max(1, body.parts) : 0,
  };
  if (meta.complete && inlined.body !== undefined) view.body = inline(inlined.body);
  return view;
}

/**
 * Whether a stored stream may be handed out: a partial body or output is
 * never a result (CONTRACT.md section 5). An HTTP body is whole only in a
 * complete result; an SSH stream says on its own.
 */
export function streamServable(meta: ResultMeta, stream: ResultStreamName): boolean {
  if (isHttpMeta(meta)) return meta.complete && stream === 'body';
  const info = stream === 'body' ? undefined : meta.streams[stream];
  return info?.complete === true;
}

function sshView(meta: SshResultMeta, inlined: InlineStreams): SshResultView {
  const { stdout, stderr } = meta.streams;
  const view: SshResultView = {
    exit_status: meta.exit_status,
    exit_signal: meta.exit_signal,
    stdout_bytes: stdout?.bytes ?? 0,
    stderr_bytes: stderr?.bytes ?? 0,
    stdout_complete: stdout?.complete ?? false,
    stderr_complete: stderr?.complete ?? false,
    stdout_parts: stdout?.complete ? Math.max(1, stdout.parts) : 0,
    stderr_parts: stderr?.complete ? Math.max(1, stderr.parts) : 0,
  };
  if (inlined.stdout !== undefined) view.stdout = inline(inlined.stdout);
  if (inlined.stderr !== undefined) view.stderr = inline(inlined.stderr);
  return view;
}

export function partView(invocationId: string, stream: ResultStreamName, seq: number, part: ResultPart): ResultPartView {
  const view: ResultPartView = {
    invocation_id: invocationId,
    stream,
    seq,
    data: inline(part.data),
    part_digest: part.part_digest,
    last: part.last,
  };
  if (part.total_bytes !== undefined) view.total_bytes = part.total_bytes;
  if (part.digest !== undefined) view.digest = part.digest;
  return view;
}
