import { Inject, Injectable } from '@nestjs/common';
import { Code, requestError, type CredentialMeta, type ErrorReply } from '@postern/contract';
import { errorName, isMalformedRequest, type WarningLog } from '@postern/service';
import { openSealed, VaultNotFoundError } from '@postern/vault';
import { checkSecret, parsePutInput, readCredentialId } from './credential-input.js';
import { CREDENTIAL_LOG } from './credential.constants.js';
import { VaultKeeper } from './vault-keeper.js';

const bad = (message: string, field?: string): ErrorReply => requestError(Code.BAD_REQUEST, message, field);

/**
 * `P.v1.credentials.put|list|revoke`. Writes go to the vault file first (the
 * truth), then to KV for the intake. Metadata is not secret, so list and
 * revoke work while the vault is locked; put needs it ready to encrypt.
 */
@Injectable()
export class CredentialOperations {
  constructor(
    private readonly keeper: VaultKeeper,
    @Inject(CREDENTIAL_LOG) private readonly log: WarningLog,
  ) {}

  async put(input: unknown): Promise<{ credential: CredentialMeta } | ErrorReply> {
    if (isMalformedRequest(input)) return bad('The request is not valid JSON.');
    const parsed = parsePutInput(input);
    if (!parsed.ok) return bad(parsed.message, parsed.field);
    const { meta, secretSealed } = parsed.value;
    if (this.keeper.vault.state !== 'ready') return requestError(Code.VAULT_LOCKED);
    let secret: Uint8Array;
    try {
      secret = openSealed(this.keeper.keyPair, secretSealed);
    } catch (err) {
      this.log.warn('credential.unseal_failed', { error: errorName(err) });
      return bad('secret_sealed could not be opened with the service key; fetch the key from vault.status and seal again.', 'secret_sealed');
    }
    let stored: CredentialMeta;
    try {
      const check = checkSecret(meta, secret);
      if (!check.ok) return bad(check.message, check.field);
      stored = await this.keeper.vault.put(meta, secret);
    } finally {
      secret.fill(0);
    }
    await this.keeper.publish(stored);
    this.log.info('credential.put', { version: stored.version, type: stored.type });
    return { credential: stored };
  }

  list(input: unknown): { credentials: CredentialMeta[] } | ErrorReply {
    if (isMalformedRequest(input)) return bad('The request is not valid JSON.');
    return { credentials: this.keeper.vault.list() };
  }

  async revoke(input: unknown): Promise<{ credential: CredentialMeta } | ErrorReply> {
    if (isMalformedRequest(input)) return bad('The request is not valid JSON.');
    const id = readCredentialId(input);
    if (!id.ok) return bad(id.message, id.field);
    let meta: CredentialMeta;
    try {
      meta = await this.keeper.vault.revoke(id.value);
    } catch (err) {
      if (err instanceof VaultNotFoundError) return requestError(Code.NOT_FOUND, 'No such credential.', 'id');
      throw err;
    }
    await this.keeper.publish(meta);
    this.log.info('credential.revoked', { version: meta.version });
    return { credential: meta };
  }
}
