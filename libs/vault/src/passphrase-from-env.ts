import { readFile } from 'node:fs/promises';
import { VaultErrorCode, VaultStateError } from './errors.js';

/**
 * The start-up passphrase from `POSTERN_VAULT_PASSPHRASE`, or the first line
 * of `POSTERN_VAULT_PASSPHRASE_FILE`; null when neither is set. The variable
 * wins when both are set.
 */
export async function passphraseFromEnv(env: Record<string, string | undefined>): Promise<string | null> {
  const direct = env.POSTERN_VAULT_PASSPHRASE;
  if (direct !== undefined && direct !== '') return direct;
  const file = env.POSTERN_VAULT_PASSPHRASE_FILE;
  if (file === undefined || file === '') return null;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new VaultStateError(VaultErrorCode.PassphraseSource, 'POSTERN_VAULT_PASSPHRASE_FILE could not be read', {
      cause: err,
    });
  }
  // Editors add a trailing newline; the passphrase is the first line as typed.
  const passphrase = text.replace(/\r?\n[\s\S]*$/, '');
  if (passphrase === '') {
    throw new VaultStateError(VaultErrorCode.PassphraseSource, 'POSTERN_VAULT_PASSPHRASE_FILE is empty');
  }
  return passphrase;
}
