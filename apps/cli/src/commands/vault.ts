import type { VaultAction } from '../args.js';
import type { Context } from '../context.js';
import { NotAvailableError } from '../errors.js';
import type { ExitCode } from '../exit-code.js';
import { requestAndPrint } from './request-and-print.js';

/**
 * `postern vault status|lock`. `init` and `unlock` seal the passphrase to the
 * credential service's key, which is built in a later version.
 */
export function runVault(ctx: Context, action: VaultAction): Promise<ExitCode> {
  switch (action) {
    case 'status':
      return requestAndPrint(ctx, ctx.subjects.vaultStatus, {});
    case 'lock':
      return requestAndPrint(ctx, ctx.subjects.vaultLock, {});
    case 'init':
    case 'unlock':
      throw new NotAvailableError(`vault ${action} is not available yet in this version`);
    default: {
      const never: never = action;
      throw new Error(`unhandled vault action ${String(never)}`);
    }
  }
}
