import { sealTo } from '@postern/vault';
import type { VaultAction } from '../args.js';
import type { Context } from '../context.js';
import { exitCodeForReply, type ExitCode } from '../exit-code.js';
import { readPassphrase } from '../secret-input.js';
import { requestAndPrint } from './request-and-print.js';
import { fetchServiceKey } from './service-key.js';

/**
 * `vault init|unlock`: the passphrase is sealed to the service's key before it
 * leaves this process, and the plaintext is wiped as soon as it is sealed.
 */
async function sendPassphrase(ctx: Context, subject: string, confirm: boolean): Promise<ExitCode> {
  const key = await fetchServiceKey(ctx);
  if (!key.ok) {
    ctx.out.reply(key.reply);
    return exitCodeForReply(key.reply.body);
  }
  const passphrase = await readPassphrase(ctx, { confirm });
  let sealed: string;
  try {
    sealed = sealTo(key.publicKey, passphrase.value);
  } finally {
    passphrase.wipe();
  }
  return requestAndPrint(ctx, subject, { passphrase_sealed: sealed });
}

/** `postern vault init|unlock|lock|status`: each prints the `{state, public_key}` reply. */
export function runVault(ctx: Context, action: VaultAction): Promise<ExitCode> {
  switch (action) {
    case 'status':
      return requestAndPrint(ctx, ctx.subjects.vaultStatus, {});
    case 'lock':
      return requestAndPrint(ctx, ctx.subjects.vaultLock, {});
    case 'init':
      return sendPassphrase(ctx, ctx.subjects.vaultInit, true);
    case 'unlock':
      return sendPassphrase(ctx, ctx.subjects.vaultUnlock, false);
    default: {
      const never: never = action;
      throw new Error(`unhandled vault action ${String(never)}`);
    }
  }
}
