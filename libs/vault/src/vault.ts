import { createCipheriv, createDecipheriv, hkdfSync, randomBytes, scrypt as scryptCb } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CredentialMeta } from '@postern/contract';
import {
  VaultDecryptError,
  VaultErrorCode,
  VaultNotFoundError,
  VaultPassphraseError,
  VaultStateError,
} from './errors.js';
import { isVaultFile, type SealedBytes, type VaultFile } from './vault-file.js';

/**
 * The encrypted vault (DESIGN.md section 5). A random 32-byte data key is
 * wrapped with AES-256-GCM under scrypt(passphrase); every record version is
 * encrypted under HKDF(data key, record id) with `id\0version` as AAD, so a
 * ciphertext moved to another record or version fails authentication.
 */

export const VaultState = {
  uninitialized: 'uninitialized',
  locked: 'locked',
  ready: 'ready',
} as const;
export type VaultState = (typeof VaultState)[keyof typeof VaultState];

export interface VaultOptions {
  /** scrypt cost; 2^15 by default. Tests may lower it. */
  scryptN?: number;
  /** ISO time source for `created_at` (the shell's clock). */
  now?: () => string;
}

const DEFAULT_N = 2 ** 15;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const WRAP_AAD = Buffer.from('postern-vault-key-v1', 'utf8');
const RECORD_INFO = Buffer.from('postern-record-v1', 'utf8');

function scrypt(passphrase: Uint8Array, salt: Buffer, N: number, r: number, p: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // maxmem must exceed 128·N·r, which the default (32 MiB) does not at N = 2^15.
    scryptCb(passphrase, salt, KEY_BYTES, { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

function encrypt(key: Buffer, plaintext: Uint8Array, aad: Buffer): SealedBytes {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { nonce: nonce.toString('base64'), ciphertext: body.toString('base64') };
}

/** Throws whatever node:crypto throws; callers map it to their typed error. */
function decrypt(key: Buffer, sealed: SealedBytes, aad: Buffer): Buffer {
  const nonce = Buffer.from(sealed.nonce, 'base64');
  const raw = Buffer.from(sealed.ciphertext, 'base64');
  if (nonce.length !== NONCE_BYTES || raw.length < TAG_BYTES) throw new Error('malformed ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  const parts = [decipher.update(raw.subarray(0, raw.length - TAG_BYTES)), decipher.final()];
  try {
    return Buffer.concat(parts);
  } finally {
    // The pieces hold plaintext too; only the returned copy may outlive this call.
    for (const part of parts) part.fill(0);
  }
}

function recordKey(dataKey: Buffer, id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', dataKey, Buffer.from(id, 'utf8'), RECORD_INFO, KEY_BYTES));
}

const recordAad = (id: string, version: number): Buffer => Buffer.from(`${id}\0${version}`, 'utf8');
const toBytes = (passphrase: string | Uint8Array): Buffer =>
  typeof passphrase === 'string' ? Buffer.from(passphrase, 'utf8') : Buffer.from(passphrase);

async function writeAtomic(file: string, content: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(content, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
}

export class Vault {
  private data: VaultFile | null;
  private dataKey: Buffer | null = null;
  /** Serialises read-modify-write so two concurrent puts never lose one another. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly file: string,
    data: VaultFile | null,
    private readonly options: VaultOptions,
  ) {
    this.data = data;
  }

  /** Reads the vault file if there is one; a missing file is `uninitialized`. */
  static async open(file: string, options: VaultOptions = {}): Promise<Vault> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return new Vault(file, null, options);
      throw new VaultStateError(VaultErrorCode.VaultFileInvalid, 'vault file could not be read', { cause: err });
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // The parse error quotes file content; it is not kept as the cause.
      throw new VaultStateError(VaultErrorCode.VaultFileInvalid, 'vault file is not valid JSON');
    }
    if (!isVaultFile(parsed)) throw new VaultStateError(VaultErrorCode.VaultFileInvalid, 'vault file has an unknown shape');
    return new Vault(file, parsed, options);
  }

  get state(): VaultState {
    if (this.data === null) return VaultState.uninitialized;
    return this.dataKey === null ? VaultState.locked : VaultState.ready;
  }

  /** Creates the vault with a new data key and leaves it ready; refuses if one exists. */
  init(passphrase: string | Uint8Array): Promise<void> {
    return this.serial(() => this.initNow(passphrase));
  }

  private async initNow(passphrase: string | Uint8Array): Promise<void> {
    if (this.data !== null) throw new VaultStateError(VaultErrorCode.VaultExists, 'vault already initialized');
    const salt = randomBytes(16);
    const N = this.options.scryptN ?? DEFAULT_N;
    const pass = toBytes(passphrase);
    const wrapKey = await scrypt(pass, salt, N, SCRYPT_R, SCRYPT_P);
    pass.fill(0);
    const dataKey = randomBytes(KEY_BYTES);
    const data: VaultFile = {
      format: 1,
      kdf: { name: 'scrypt', N, r: SCRYPT_R, p: SCRYPT_P, salt: salt.toString('base64') },
      wrapped_key: encrypt(wrapKey, dataKey, WRAP_AAD),
      records: {},
    };
    wrapKey.fill(0);
    await this.persist(data);
    this.data = data;
    this.dataKey = dataKey;
  }

  async unlock(passphrase: string | Uint8Array): Promise<void> {
    const data = this.requireData();
    const pass = toBytes(passphrase);
    const wrapKey = await scrypt(pass, Buffer.from(data.kdf.salt, 'base64'), data.kdf.N, data.kdf.r, data.kdf.p);
    pass.fill(0);
    try {
      const dataKey = decrypt(wrapKey, data.wrapped_key, WRAP_AAD);
      this.lock();
      this.dataKey = dataKey;
    } catch {
      // The GCM failure says nothing useful and must not become a cause chain with key material.
      throw new VaultPassphraseError();
    } finally {
      wrapKey.fill(0);
    }
  }

  /** Initialises with the passphrase when there is no vault yet, else unlocks. */
  async unlockOrInit(passphrase: string | Uint8Array): Promise<void> {
    if (this.data === null) await this.serial(() => (this.data === null ? this.initNow(passphrase) : this.unlock(passphrase)));
    else await this.unlock(passphrase);
  }

  /** Forgets the data key; its buffer is zeroed first. */
  lock(): void {
    this.dataKey?.fill(0);
    this.dataKey = null;
  }

  /**
   * Stores a new version of a credential. The first put of an id is version 1;
   * every later put is the last version + 1, and clears a revocation.
   */
  put(meta: Omit<CredentialMeta, 'version' | 'created_at' | 'revoked'>, secret: Uint8Array): Promise<CredentialMeta> {
    return this.serial(() => this.putNow(meta, secret));
  }

  private async putNow(meta: Omit<CredentialMeta, 'version' | 'created_at' | 'revoked'>, secret: Uint8Array): Promise<CredentialMeta> {
    const dataKey = this.requireKey();
    const data = this.requireData();
    const id = meta.id;
    const previous = data.records[id];
    const version = (previous?.versions.reduce((max, v) => Math.max(max, v.version), 0) ?? 0) + 1;
    const createdAt = this.now();
    const key = recordKey(dataKey, id);
    let sealed: SealedBytes;
    try {
      sealed = encrypt(key, secret, recordAad(id, version));
    } finally {
      key.fill(0);
    }
    const current: CredentialMeta = { ...stripMeta(meta), version, created_at: createdAt };
    const next: VaultFile = {
      ...data,
      records: {
        ...data.records,
        [id]: { meta: current, versions: [...(previous?.versions ?? []), { version, created_at: createdAt, ...sealed }] },
      },
    };
    await this.persist(next);
    this.data = next;
    return { ...current };
  }

  /** Marks the credential revoked (its versions stay, for audit; none is current). */
  revoke(id: string): Promise<CredentialMeta> {
    return this.serial(() => this.revokeNow(id));
  }

  private async revokeNow(id: string): Promise<CredentialMeta> {
    const data = this.requireData();
    const record = data.records[id];
    if (record === undefined) throw new VaultNotFoundError();
    const meta: CredentialMeta = { ...record.meta, revoked: true };
    const next: VaultFile = { ...data, records: { ...data.records, [id]: { ...record, meta } } };
    await this.persist(next);
    this.data = next;
    return { ...meta };
  }

  list(): CredentialMeta[] {
    if (this.data === null) return [];
    return Object.values(this.data.records)
      .map((r) => ({ ...r.meta, scope: [...r.meta.scope] }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** The current metadata of a credential (revoked ones included, flagged), or null. */
  current(id: string): CredentialMeta | null {
    const meta = this.data?.records[id]?.meta;
    return meta === undefined ? null : { ...meta, scope: [...meta.scope] };
  }

  /** The secret of one version. The caller owns the buffer and should zero it after use. */
  decrypt(id: string, version: number): Uint8Array {
    const dataKey = this.requireKey();
    const stored = this.requireData().records[id]?.versions.find((v) => v.version === version);
    if (stored === undefined) throw new VaultNotFoundError();
    const key = recordKey(dataKey, id);
    try {
      return decrypt(key, stored, recordAad(id, version));
    } catch {
      throw new VaultDecryptError(id, version);
    } finally {
      key.fill(0);
    }
  }

  private now(): string {
    return this.options.now?.() ?? new Date().toISOString();
  }

  private requireData(): VaultFile {
    if (this.data === null) throw new VaultStateError(VaultErrorCode.VaultUninitialized, 'vault is not initialized');
    return this.data;
  }

  private requireKey(): Buffer {
    this.requireData();
    if (this.dataKey === null) throw new VaultStateError(VaultErrorCode.VaultLocked, 'vault is locked');
    return this.dataKey;
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private persist(data: VaultFile): Promise<void> {
    return writeAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`);
  }
}

/** Keeps only the metadata fields of the contract, so nothing else can reach the file or KV. */
function stripMeta(meta: Omit<CredentialMeta, 'version' | 'created_at' | 'revoked'>): Omit<CredentialMeta, 'version' | 'created_at'> {
  const out: Omit<CredentialMeta, 'version' | 'created_at'> = {
    id: meta.id,
    type: meta.type,
    scope: [...meta.scope],
    approval: meta.approval,
  };
  if (meta.user !== undefined) out.user = meta.user;
  if (meta.header_name !== undefined) out.header_name = meta.header_name;
  if (meta.param !== undefined) out.param = meta.param;
  return out;
}
