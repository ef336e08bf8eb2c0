import { timingSafeEqual } from 'node:crypto';
import type { Context } from './context.js';
import { UsageError } from './errors.js';

/**
 * A secret read from stdin: `value` is a view into `backing`, and `wipe`
 * zeroes all of what was read, so no copy of the plaintext outlives the seal.
 */
export interface Secret {
  readonly value: Uint8Array;
  wipe(): void;
}

function secretOf(backing: Buffer, end: number): Secret {
  return { value: backing.subarray(0, end), wipe: () => backing.fill(0) };
}

/** The first line, without its line ending: what a passphrase piped on stdin is. */
export function firstLine(backing: Buffer): Secret {
  const lf = backing.indexOf(0x0a);
  let end = lf === -1 ? backing.length : lf;
  if (end > 0 && backing[end - 1] === 0x0d) end--;
  return secretOf(backing, end);
}

/**
 * All of it, less one trailing newline (`\n` or `\r\n`): `echo token |` and a
 * file saved by an editor both add one that is not part of the secret.
 */
export function withoutTrailingNewline(backing: Buffer): Secret {
  let end = backing.length;
  if (end > 0 && backing[end - 1] === 0x0a) {
    end--;
    if (end > 0 && backing[end - 1] === 0x0d) end--;
  }
  return secretOf(backing, end);
}

/** Exactly what was given: a PEM key file is kept byte for byte, final newline included. */
export function asGiven(backing: Buffer): Secret {
  return secretOf(backing, backing.length);
}

const BLANK = new Set([0x20, 0x09, 0x0a, 0x0d]);

// Checked on the bytes: decoding to a string would make a copy nothing can wipe.
function isBlank(value: Uint8Array): boolean {
  return value.every((b) => BLANK.has(b));
}

function refuseEmpty(secret: Secret, what: string): Secret {
  if (isBlank(secret.value)) {
    secret.wipe();
    throw new UsageError(`the ${what} is empty: give it on stdin`);
  }
  return secret;
}

export interface PassphraseOptions {
  /** `vault init` asks twice on a terminal: a typo there would lock the vault for good. */
  confirm: boolean;
}

/**
 * The vault passphrase: the first line of stdin when piped; on a terminal a
 * prompt on stderr that does not echo. Never from argv or the environment.
 */
export async function readPassphrase(ctx: Context, opts: PassphraseOptions): Promise<Secret> {
  if (!ctx.stdinIsTTY) return refuseEmpty(firstLine(await ctx.readStdin()), 'passphrase');
  const first = refuseEmpty(asGiven(await ctx.promptHidden('vault passphrase: ')), 'passphrase');
  if (!opts.confirm) return first;
  const again = asGiven(await ctx.promptHidden('repeat the passphrase: ').catch((err: unknown) => {
    first.wipe();
    throw err;
  }));
  const same = first.value.length === again.value.length && timingSafeEqual(first.value, again.value);
  again.wipe();
  if (!same) {
    first.wipe();
    throw new UsageError('the two passphrases differ; nothing was sent');
  }
  return first;
}

export interface CredentialSecretOptions {
  id: string;
  /** Key files keep their exact bytes; everything else loses one trailing newline. */
  keepAsGiven: boolean;
}

/**
 * A credential's secret: all of stdin when piped; on a terminal one hidden
 * line, which a multi-line key file cannot be.
 */
export async function readCredentialSecret(ctx: Context, opts: CredentialSecretOptions): Promise<Secret> {
  if (ctx.stdinIsTTY) {
    if (opts.keepAsGiven) throw new UsageError('a key file cannot be typed: pipe it on stdin (`postern credential put ... < key.pem`)');
    return refuseEmpty(asGiven(await ctx.promptHidden(`secret for ${opts.id}: `)), 'secret');
  }
  const backing = await ctx.readStdin();
  return refuseEmpty(opts.keepAsGiven ? asGiven(backing) : withoutTrailingNewline(backing), 'secret');
}
