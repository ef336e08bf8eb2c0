import type { Context } from '../context.js';
import type { ExitCode } from '../exit-code.js';
import { requestAndPrint } from './request-and-print.js';

/** `postern cancel <id>`: the broker decides what a cancel means at the phase reached. */
export function runCancel(ctx: Context, invocationId: string): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.actionsCancel, { invocation_id: invocationId });
}
