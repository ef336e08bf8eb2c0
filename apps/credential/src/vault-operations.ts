import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type ErrorReply } from '@postern/contract';
import { errorName, isMalformedRequest, type WarningLog } from '@postern/service';
import { openSealed, VaultPassphraseError, VaultStateError, VaultErrorCode } from '@postern/vault';
import { CREDENTIAL_LOG } from './credential.constants.js';
import { VaultKeeper } from './vault-keeper.js';

export type VaultReply = { state: string; public_key: string } | ErrorReply;

const bad = (message: string, field?: string): ErrorReply => requestError(Code.BAD_REQUEST, message, field);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `P.v1.vault.status|init|unlock|lock`. Passphrases arrive sealed to the service key and are zeroed after use. */
@Injectable()
export class VaultOperations {
  constructor(
    private readonly keeper: VaultKeeper,
    @Inject(CREDENTIAL_LOG) private readonly log: WarningLog,
  ) {}

  status(input: unknown): VaultReply {
    if (isMalformedRequest(input)) return bad('The request is not valid JSON.');
    return this.keeper.status();
  }

  async init(input: unknown): Promise<VaultReply> {
    const passphrase = this.openPassphrase(input);
    if ('error' in passphrase) return passphrase;
    try {
      await this.keeper.vault.init(passphrase.bytes);
    } catch (err) {
      if (err instanceof VaultStateError && err.code === VaultErrorCode.VaultExists) return bad('The vault is already initialized.');
      throw err;
    } finally {
      passphrase.bytes.fill(0);
    }
    this.log.info('vault.initialized', { state: this.keeper.vault.state });
    return this.keeper.status();
  }

  async unlock(input: unknown): Promise<VaultReply> {
    const passphrase = this.openPassphrase(input);
    if ('error' in passphrase) return passphrase;
    try {
      await this.keeper.vault.unlock(passphrase.bytes);
    } catch (err) {
      if (err instanceof VaultPassphraseError) {
        this.log.warn('vault.unlock_refused', { reason: 'wrong_passphrase' });
        return bad('wrong passphrase', 'passphrase_sealed');
      }
      if (err instanceof VaultStateError && err.code === VaultErrorCode.VaultUninitialized) {
        return bad('The vault is not initialized; use vault init.');
      }
      throw err;
    } finally {
      passphrase.bytes.fill(0);
    }
    this.log.info('vault.unlocked', { state: this.keeper.vault.state });
    return this.keeper.status();
  }

  lock(input: unknown): VaultReply {
    if (isMalformedRequest(input)) return bad('The request is not valid JSON.');
    this.keeper.vault.lock();
    this.log.info('vault.locked', { state: this.keeper.vault.state });
    return this.keeper.status();
  }

  private openPassphrase(input: unknown): { bytes: Uint8Array } | ErrorReply {
    if (isMalformedRequest(input) || !isObject(input)) return bad('The request must be a JSON object.');
    const sealed = input['passphrase_sealed'];
    if (typeof sealed !== 'string') return bad('passphrase_sealed is required.', 'passphrase_sealed');
    let bytes: Uint8Array;
    try {
      bytes = openSealed(this.keeper.keyPair, sealed);
    } catch (err) {
      this.log.warn('vault.unseal_failed', { error: errorName(err) });
      return bad('passphrase_sealed could not be opened with the service key; fetch the key from vault.status and seal again.', 'passphrase_sealed');
    }
    if (bytes.length === 0) return bad('The passphrase is empty.', 'passphrase_sealed');
    return { bytes };
  }
}
