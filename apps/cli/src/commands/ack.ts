import type { Context } from '../context.js';
import { BadReplyError } from '../errors.js';
import { exitCodeForReply, type ExitCode } from '../exit-code.js';

/**
 * `postern ack <id>`: acknowledges the result that is stored now, by its
 * digest, so an ack can never confirm a result this caller did not see.
 */
export async function runAck(ctx: Context, invocationId: string): Promise<ExitCode> {
  const broker = await ctx.broker();
  const fetched = await broker.request(ctx.subjects.resultsFetch, JSON.stringify({ invocation_id: invocationId }), ctx.options.timeoutMs);
  const view = fetched.body as Record<string, unknown> | null;
  if (typeof view !== 'object' || view === null || (view.error !== undefined && view.error !== null)) {
    ctx.out.reply(fetched);
    return exitCodeForReply(view);
  }
  if (typeof view.result_digest !== 'string') throw new BadReplyError('the result has no result_digest');
  const reply = await broker.request(
    ctx.subjects.resultsAck,
    JSON.stringify({ invocation_id: invocationId, result_digest: view.result_digest }),
    ctx.options.timeoutMs,
  );
  ctx.out.reply(reply);
  return exitCodeForReply(reply.body);
}
