import type { Context } from '../context.js';
import type { ExitCode } from '../exit-code.js';
import { requestAndPrint } from './request-and-print.js';

/** `postern get <id>`: the RecordView as the broker reads it now. */
export function runGet(ctx: Context, invocationId: string): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.actionsGet, { invocation_id: invocationId });
}
