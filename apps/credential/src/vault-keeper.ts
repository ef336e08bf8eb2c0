import { generateSealKeyPair, publicKeyBase64, type SealKeyPair, type Vault } from '@postern/vault';
import type { CredentialMeta } from '@postern/contract';
import { encodeKvKey, type JournalResources } from '@postern/journal';

/**
 * The service's vault and its sealing key pair. The key pair lives only in
 * this process's memory and is new at every start: a CLI asks `vault.status`
 * for the key right before sealing. With several replicas each would have its
 * own key and vault state, so one replica is supported for now.
 */
export class VaultKeeper {
  readonly keyPair: SealKeyPair = generateSealKeyPair();

  constructor(
    readonly vault: Vault,
    private readonly res: JournalResources,
  ) {}

  status(): { state: Vault['state']; public_key: string } {
    return { state: this.vault.state, public_key: publicKeyBase64(this.keyPair) };
  }

  /** KV `<prefix>_credentials` is what the intake reads; the vault file stays the truth. */
  async publish(meta: CredentialMeta): Promise<void> {
    await this.res.kv.credentials.put(encodeKvKey(meta.id), JSON.stringify(meta));
  }

  /** Makes the KV bucket equal the vault's metadata: every record written, every stray key deleted. */
  async republishAll(): Promise<{ published: number; removed: number }> {
    const metas = this.vault.list();
    const wanted = new Set(metas.map((m) => encodeKvKey(m.id)));
    for (const meta of metas) await this.publish(meta);
    let removed = 0;
    const keys = await this.res.kv.credentials.keys();
    for await (const key of keys) {
      if (!wanted.has(key)) {
        await this.res.kv.credentials.delete(key);
        removed++;
      }
    }
    return { published: metas.length, removed };
  }
}
