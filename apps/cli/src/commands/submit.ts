import { readFile } from 'node:fs/promises';
import { Status, type RecordView } from '@postern/contract';
import type { BrokerReply } from '../broker.js';
import type { Context } from '../context.js';
import { BrokerUnreachableError, InvalidJsonError, UnreachableReason, UsageError } from '../errors.js';
import { exitCodeForReply, isRecordView, ExitCode } from '../exit-code.js';
import { locateJsonError } from '../json-position.js';

const POLL_INTERVAL_MS = 250;

export interface SubmitOptions {
  file: string | null;
  wait: boolean;
  waitMs: number;
}

async function readCommand(ctx: Context, file: string | null): Promise<{ text: string; source: string }> {
  if (file === null && ctx.stdinIsTTY) {
    throw new UsageError('submit needs a command: give a file, or pipe the JSON on stdin (`postern submit - < cmd.json`)');
  }
  if (file === null || file === '-') return { text: (await ctx.readStdin()).toString('utf8'), source: 'stdin' };
  try {
    return { text: await readFile(file, 'utf8'), source: file };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read ${file}${code === undefined ? '' : ` (${code})`}`, { cause: err });
  }
}

/** Rejects text that is not JSON before anything is sent, saying where it breaks. */
export function checkJson(text: string, source: string): void {
  try {
    JSON.parse(text);
  } catch (err) {
    const at = locateJsonError(text) ?? { offset: text.length, line: 0, column: 0, reason: 'not valid JSON' };
    throw new InvalidJsonError(
      `${source} is not valid JSON: ${at.reason} at line ${at.line}, column ${at.column} (position ${at.offset})`,
      at.offset,
      at.line,
      at.column,
      { cause: err },
    );
  }
}

function isResolved(reply: BrokerReply): boolean {
  return !isRecordView(reply.body) || (reply.body as RecordView).status === Status.resolved;
}

/**
 * Waits on actions.await, which answers once the record is resolved or its own
 * timeout passes. Where no service serves await, falls back to polling
 * actions.get. Both are bounded by `waitMs`.
 */
async function waitResolved(ctx: Context, first: BrokerReply, waitMs: number): Promise<BrokerReply> {
  const broker = await ctx.broker();
  const id = (first.body as RecordView).invocation_id;
  const deadline = ctx.now() + waitMs;
  const maxRounds = Math.ceil(waitMs / POLL_INTERVAL_MS) + 2;
  let reply = first;
  let useAwait = true;
  for (let round = 0; round < maxRounds && !isResolved(reply); round++) {
    const remaining = deadline - ctx.now();
    if (remaining <= 0) break;
    if (useAwait) {
      const startedAt = ctx.now();
      try {
        reply = await broker.request(
          ctx.subjects.actionsAwait,
          JSON.stringify({ invocation_id: id, timeout_ms: remaining }),
          remaining + ctx.options.timeoutMs,
        );
      } catch (err) {
        if (!(err instanceof BrokerUnreachableError && err.reason === UnreachableReason.no_responders)) throw err;
        useAwait = false;
        continue;
      }
      // An await that returns early while still pending must not become a busy loop.
      if (!isResolved(reply) && ctx.now() - startedAt < POLL_INTERVAL_MS) await ctx.sleep(POLL_INTERVAL_MS);
    } else {
      await ctx.sleep(Math.min(POLL_INTERVAL_MS, remaining));
      reply = await broker.request(ctx.subjects.actionsGet, JSON.stringify({ invocation_id: id }), ctx.options.timeoutMs);
    }
  }
  return reply;
}

/** `postern submit [file|-]`: sends the command as written, then waits for the broker's last word. */
export async function runSubmit(ctx: Context, opts: SubmitOptions): Promise<ExitCode> {
  const { text, source } = await readCommand(ctx, opts.file);
  checkJson(text, source);
  const broker = await ctx.broker();
  let reply = await broker.request(ctx.subjects.actionsSubmit, text, ctx.options.timeoutMs);
  if (opts.wait && isRecordView(reply.body)) reply = await waitResolved(ctx, reply, opts.waitMs);
  ctx.out.reply(reply);
  if (isRecordView(reply.body) && !isResolved(reply)) {
    const id = (reply.body as RecordView).invocation_id;
    ctx.out.note(
      opts.wait
        ? `still pending after ${opts.waitMs} ms; check again with \`postern get ${id}\``
        : `submitted; follow it with \`postern get ${id}\``,
    );
    return ExitCode.broker_error;
  }
  return exitCodeForReply(reply.body);
}
