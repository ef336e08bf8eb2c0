import { CredentialType } from '@postern/contract';
import { sealTo } from '@postern/vault';
import type { CredentialPut } from '../args.js';
import type { Context } from '../context.js';
import { exitCodeForReply, type ExitCode } from '../exit-code.js';
import { readCredentialSecret } from '../secret-input.js';
import { requestAndPrint } from './request-and-print.js';
import { fetchServiceKey } from './service-key.js';

/** The `credentials.put` request, with the secret already sealed (CONTRACT section 7). */
export function putRequest(put: CredentialPut, secretSealed: string): Record<string, unknown> {
  return {
    id: put.id,
    type: put.type,
    scope: put.scope,
    ...(put.user !== null ? { user: put.user } : {}),
    ...(put.headerName !== null ? { header_name: put.headerName } : {}),
    ...(put.param !== null ? { param: put.param } : {}),
    approval: put.approval,
    secret_sealed: secretSealed,
  };
}

/**
 * `postern credential put`: the secret comes from stdin only, is sealed to
 * the credential service's key, and is wiped before anything is sent.
 */
export async function runCredentialPut(ctx: Context, put: CredentialPut): Promise<ExitCode> {
  const key = await fetchServiceKey(ctx);
  if (!key.ok) {
    ctx.out.reply(key.reply);
    return exitCodeForReply(key.reply.body);
  }
  const secret = await readCredentialSecret(ctx, { id: put.id, keepAsGiven: put.type === CredentialType.ssh_key });
  let sealed: string;
  try {
    sealed = sealTo(key.publicKey, secret.value);
  } finally {
    secret.wipe();
  }
  return requestAndPrint(ctx, ctx.subjects.credentialsPut, putRequest(put, sealed));
}

/** `postern credential list`: metadata only; the broker never returns secrets. */
export function runCredentialList(ctx: Context): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.credentialsList, {});
}

/** `postern credential revoke <id>`. */
export function runCredentialRevoke(ctx: Context, id: string): Promise<ExitCode> {
  return requestAndPrint(ctx, ctx.subjects.credentialsRevoke, { id });
}
