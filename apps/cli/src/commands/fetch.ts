import { createHash } from 'node:crypto';
import { Outcome } from '@postern/contract';
import type { Broker } from '../broker.js';
import type { Context } from '../context.js';
import { BadReplyError } from '../errors.js';
import { exitCodeForReply, ExitCode } from '../exit-code.js';

type Stream = 'body' | 'stdout' | 'stderr';

// A stream split into more parts than this is a broker defect, not a result.
const MAX_PARTS = 100_000;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeInline(value: unknown): Buffer | null {
  if (!isObject(value)) return null;
  if (typeof value.base64 === 'string') return Buffer.from(value.base64, 'base64');
  if (typeof value.text === 'string') return Buffer.from(value.text, 'utf8');
  return null;
}

function sha256(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Checks a `sha256:<hex>` digest; digests in another form are left to the broker. */
function verify(what: string, expected: unknown, data: Uint8Array): void {
  if (typeof expected !== 'string' || !expected.startsWith('sha256:')) return;
  if (sha256(data) !== expected) throw new BadReplyError(`${what} does not match its digest`);
}

/**
 * Reads a stream part by part (seq 1, 2, ...) until the part marked `last`,
 * verifying each part and the whole before any byte is written: a partial
 * body is never handed on as a result.
 */
export async function readParts(ctx: Context, broker: Broker, invocationId: string, stream: Stream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let seq = 1; seq <= MAX_PARTS; seq++) {
    const reply = await broker.request(
      ctx.subjects.resultsPart,
      JSON.stringify({ invocation_id: invocationId, stream, seq }),
      ctx.options.timeoutMs,
    );
    const part = reply.body;
    if (!isObject(part) || part.error !== undefined) {
      throw new BadReplyError(`part ${seq} of ${stream} could not be read: ${JSON.stringify(isObject(part) ? part.error : part)}`);
    }
    const data = decodeInline(part.data);
    if (data === null) throw new BadReplyError(`part ${seq} of ${stream} has no data`);
    verify(`part ${seq} of ${stream}`, part.part_digest, data);
    chunks.push(data);
    if (part.last === true) {
      const whole = Buffer.concat(chunks);
      if (typeof part.total_bytes === 'number' && part.total_bytes !== whole.length) {
        throw new BadReplyError(`${stream} has ${whole.length} bytes, the broker said ${part.total_bytes}`);
      }
      verify(stream, part.digest, whole);
      return whole;
    }
  }
  throw new BadReplyError(`${stream} has more than ${MAX_PARTS} parts`);
}

async function readStream(
  ctx: Context,
  broker: Broker,
  invocationId: string,
  stream: Stream,
  inline: unknown,
  parts: unknown,
): Promise<Buffer | null> {
  const data = decodeInline(inline);
  if (data !== null && !(typeof parts === 'number' && parts > 1)) return data;
  if (typeof parts === 'number' && parts >= 1) return readParts(ctx, broker, invocationId, stream);
  return data;
}

/** 0 only for a complete, committed result; a rejected remote answer is still the broker's "no". */
export function exitCodeForResult(view: unknown): ExitCode {
  if (!isObject(view) || (view.error !== undefined && view.error !== null)) return exitCodeForReply(view);
  return view.complete !== false && view.outcome === Outcome.committed ? ExitCode.ok : ExitCode.broker_error;
}

/**
 * `postern fetch <id>`: writes the stored body (HTTP) or stdout (SSH) to
 * stdout, and an SSH command's stderr to stderr. `--json` prints the ResultView.
 */
export async function runFetch(ctx: Context, invocationId: string): Promise<ExitCode> {
  const broker = await ctx.broker();
  const reply = await broker.request(ctx.subjects.resultsFetch, JSON.stringify({ invocation_id: invocationId }), ctx.options.timeoutMs);
  const view = reply.body;
  if (ctx.options.json || !isObject(view) || (view.error !== undefined && view.error !== null)) {
    ctx.out.reply(reply);
    return exitCodeForResult(view);
  }
  if (view.complete === false) {
    ctx.out.note('the result is incomplete (complete: false): no body was stored; see `postern get` for why');
    return ExitCode.broker_error;
  }
  if (isObject(view.http)) {
    const body = await readStream(ctx, broker, invocationId, 'body', view.http.body, view.http.parts);
    if (body !== null) ctx.out.bytes(body);
  } else if (isObject(view.ssh)) {
    const out = await readStream(ctx, broker, invocationId, 'stdout', view.ssh.stdout, view.ssh.stdout_parts);
    const err = await readStream(ctx, broker, invocationId, 'stderr', view.ssh.stderr, view.ssh.stderr_parts);
    if (out !== null) ctx.out.bytes(out);
    if (err !== null) ctx.out.stderrWriter().write(err);
  } else {
    throw new BadReplyError('the result has neither `http` nor `ssh`');
  }
  return exitCodeForResult(view);
}
