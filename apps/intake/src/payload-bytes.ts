import type { ActionCommand, BodyInput } from '@postern/contract';
import { encodingOf, type PayloadRef } from './accepted-command.js';

/**
 * The exact bytes the dispatcher will send as the HTTP body or SSH stdin. A
 * `json` body is serialised once, here: the payload store then keeps these
 * bytes, so a retry after a restart sends the same ones.
 */
export function payloadBytes(command: ActionCommand): { bytes: Uint8Array; encoding: PayloadRef['encoding'] } | null {
  const body: BodyInput | undefined = command.http?.body ?? command.ssh?.stdin;
  if (body === undefined) return null;
  const encoding = encodingOf(body);
  if ('text' in body) return { bytes: new TextEncoder().encode(body.text), encoding };
  if ('base64' in body) return { bytes: new Uint8Array(Buffer.from(body.base64, 'base64')), encoding };
  return { bytes: new TextEncoder().encode(JSON.stringify(body.json) ?? 'null'), encoding };
}
