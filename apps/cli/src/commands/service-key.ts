import { parsePublicKey } from '@postern/vault';
import type { BrokerReply } from '../broker.js';
import type { Context } from '../context.js';
import { BadReplyError } from '../errors.js';

export type ServiceKey = { ok: true; publicKey: Uint8Array; state: unknown } | { ok: false; reply: BrokerReply };

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The credential service's public key, from `vault.status`: everything secret
 * this CLI sends is sealed to it. An error reply is handed back to be printed
 * as the broker's word; a reply without a usable key is a broker defect.
 */
export async function fetchServiceKey(ctx: Context): Promise<ServiceKey> {
  const broker = await ctx.broker();
  const reply = await broker.request(ctx.subjects.vaultStatus, '{}', ctx.options.timeoutMs);
  const body = reply.body;
  if (!isObject(body) || (body.error !== undefined && body.error !== null)) return { ok: false, reply };
  if (typeof body.public_key !== 'string') throw new BadReplyError('the vault status reply has no public_key to seal to');
  try {
    return { ok: true, publicKey: parsePublicKey(body.public_key), state: body.state };
  } catch (err) {
    throw new BadReplyError('the vault status reply has a public_key that is not a raw 32-byte X25519 key in base64', { cause: err });
  }
}
