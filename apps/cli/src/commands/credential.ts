import type { CredentialPut } from '../args.js';
import type { Context } from '../context.js';
import { NotAvailableError } from '../errors.js';
import type { ExitCode } from '../exit-code.js';
import { requestAndPrint } from './request-and-print.js';

/**
 * `postern credential put`: the secret must be sealed to the credential
 * service's key before it leaves this process, and that service is built in a
 * later version; until then nothing is read from stdin or sent.
 */
export function runCredentialPut(_ctx: Context, _put: CredentialPut): Promise<ExitCode> {
  throw new NotAvailableError('credential put is not available yet in this version');
}

/** `postern credential list`: metadata only; the broker never returns secrets. */
export function runCredentialList(ctx: Context): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.credentialsList, {});
}

/** `postern credential revoke <id>`. */
export function runCredentialRevoke(ctx: Context, id: string): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.credentialsRevoke, { id });
}
