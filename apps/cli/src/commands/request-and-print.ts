import type { Context } from '../context.js';
import { exitCodeForReply, type ExitCode } from '../exit-code.js';

/** The shape of most commands: one request, print the reply, exit by what it says. */
export async function requestAndPrint(ctx: Context, subject: string, body: unknown): Promise<ExitCode> {
  const broker = await ctx.broker();
  const reply = await broker.request(subject, JSON.stringify(body), ctx.options.timeoutMs);
  ctx.out.reply(reply);
  return exitCodeForReply(reply.body);
}
