import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CredentialType } from '@postern/contract';
import { VaultDecryptError, VaultNotFoundError, VaultPassphraseError, VaultStateError } from './errors.js';
import { passphraseFromEnv } from './passphrase-from-env.js';
import { Vault, VaultState } from './vault.js';

const FAST = { scryptN: 2 ** 10 };
const PASS = 'correct horse battery staple';
const CANARY = 'CANARY-vault-7c1e5a9b-secret-value';
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');
const bearer = { id: 'payments-api', type: CredentialType.http_bearer, scope: ['https://api.example.com'], approval: 'none' as const };

/** Every encoding a leak could take. */
function encodings(secret: string): string[] {
  const b = Buffer.from(secret, 'utf8');
  return [secret, b.toString('base64'), b.toString('base64url'), b.toString('hex'), b.toString('hex').toUpperCase(), encodeURIComponent(secret)];
}

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postern-vault-'));
  file = join(dir, 'home', 'vault.json');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a vault with no file', () => {
  it('is uninitialized and lists nothing', async () => {
    const vault = await Vault.open(file, FAST);
    expect(vault.state).toBe(VaultState.uninitialized);
    expect(vault.list()).toEqual([]);
    await expect(vault.unlock(PASS)).rejects.toBeInstanceOf(VaultStateError);
  });

  it('init makes it ready and writes a 0600 file', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    expect(vault.state).toBe(VaultState.ready);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const parsed = JSON.parse(await readFile(file, 'utf8'));
    expect(parsed.format).toBe(1);
    expect(parsed.kdf).toMatchObject({ name: 'scrypt', N: 2 ** 10, r: 8, p: 1 });
  });

  it('uses scrypt N = 2^15 by default', async () => {
    const vault = await Vault.open(file);
    await vault.init(PASS);
    expect(JSON.parse(await readFile(file, 'utf8')).kdf.N).toBe(2 ** 15);
  });

  it('unlockOrInit creates it', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.unlockOrInit(PASS);
    expect(vault.state).toBe(VaultState.ready);
  });
});

describe('an initialized vault', () => {
  it('refuses a second init', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    await expect(vault.init('other')).rejects.toBeInstanceOf(VaultStateError);
    const reopened = await Vault.open(file, FAST);
    await expect(reopened.init(PASS)).rejects.toBeInstanceOf(VaultStateError);
  });

  it('locks, refuses decrypt and put while locked, and unlocks again', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    const meta = await vault.put(bearer, bytes(CANARY));
    vault.lock();
    expect(vault.state).toBe(VaultState.locked);
    expect(() => vault.decrypt(meta.id, meta.version)).toThrow(VaultStateError);
    await expect(vault.put(bearer, bytes('x'))).rejects.toBeInstanceOf(VaultStateError);
    await vault.unlock(PASS);
    expect(text(vault.decrypt(meta.id, meta.version))).toBe(CANARY);
  });

  it('a wrong passphrase is VaultPassphraseError and leaves it locked', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    vault.lock();
    const err = await vault.unlock('not the passphrase').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(VaultPassphraseError);
    expect((err as Error).message).not.toContain('not the passphrase');
    expect(vault.state).toBe(VaultState.locked);
  });

  it('a wrong passphrase on a ready vault does not lock it', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    await expect(vault.unlock('nope')).rejects.toBeInstanceOf(VaultPassphraseError);
    expect(vault.state).toBe(VaultState.ready);
  });

  it('keeps metadata readable while locked and across re-open', async () => {
    const vault = await Vault.open(file, FAST);
    await vault.init(PASS);
    await vault.put(bearer, bytes(CANARY));
    vault.lock();
    expect(vault.current('payments-api')).toMatchObject({ id: 'payments-api', version: 1 });
    const reopened = await Vault.open(file, FAST);
    expect(reopened.state).toBe(VaultState.locked);
    expect(reopened.list().map((m) => m.id)).toEqual(['payments-api']);
    await reopened.unlock(PASS);
    expect(text(reopened.decrypt('payments-api', 1))).toBe(CANARY);
  });
});

describe('credentials in a ready vault', () => {
  async function ready(): Promise<Vault> {
    const vault = await Vault.open(file, { ...FAST, now: () => '2026-01-02T03:04:05.000Z' });
    await vault.init(PASS);
    return vault;
  }

  it('put stores version 1 with contract metadata only', async () => {
    const vault = await ready();
    const meta = await vault.put({ ...bearer, extra: 'x' } as typeof bearer, bytes(CANARY));
    expect(meta).toEqual({ ...bearer, version: 1, created_at: '2026-01-02T03:04:05.000Z' });
    expect(vault.current('payments-api')).toEqual(meta);
  });

  it('each put of the same id makes the next version; old versions still decrypt', async () => {
    const vault = await ready();
    await vault.put(bearer, bytes('one'));
    await vault.put(bearer, bytes('two'));
    const third = await vault.put({ ...bearer, scope: ['https://api.example.com:*'] }, bytes('three'));
    expect(third.version).toBe(3);
    expect(third.scope).toEqual(['https://api.example.com:*']);
    expect(text(vault.decrypt('payments-api', 1))).toBe('one');
    expect(text(vault.decrypt('payments-api', 3))).toBe('three');
    expect(vault.list()).toHaveLength(1);
  });

  it('lists credentials sorted by id', async () => {
    const vault = await ready();
    await vault.put({ ...bearer, id: 'zeta' }, bytes('z'));
    await vault.put({ ...bearer, id: 'alpha', type: CredentialType.http_header, header_name: 'X-Api-Key' }, bytes('a'));
    expect(vault.list().map((m) => m.id)).toEqual(['alpha', 'zeta']);
    expect(vault.current('alpha')?.header_name).toBe('X-Api-Key');
  });

  it('revoke flags the credential, survives re-open, and a later put clears it', async () => {
    const vault = await ready();
    await vault.put(bearer, bytes('one'));
    expect((await vault.revoke('payments-api')).revoked).toBe(true);
    expect((await Vault.open(file, FAST)).current('payments-api')?.revoked).toBe(true);
    const next = await vault.put(bearer, bytes('two'));
    expect(next.version).toBe(2);
    expect(next.revoked).toBeUndefined();
  });

  it('revoke of an unknown id and decrypt of an unknown version are not found', async () => {
    const vault = await ready();
    await expect(vault.revoke('nope')).rejects.toBeInstanceOf(VaultNotFoundError);
    await vault.put(bearer, bytes('one'));
    expect(() => vault.decrypt('payments-api', 2)).toThrow(VaultNotFoundError);
    expect(() => vault.decrypt('nope', 1)).toThrow(VaultNotFoundError);
    expect(vault.current('nope')).toBeNull();
  });

  it('a tampered ciphertext is VaultDecryptError after re-open', async () => {
    const vault = await ready();
    await vault.put(bearer, bytes(CANARY));
    await vault.put(bearer, bytes('second'));
    const parsed = JSON.parse(await readFile(file, 'utf8'));
    const ct = Buffer.from(parsed.records['payments-api'].versions[0].ciphertext, 'base64');
    ct[0] = ct[0]! ^ 0xff;
    parsed.records['payments-api'].versions[0].ciphertext = ct.toString('base64');
    await writeFile(file, JSON.stringify(parsed));
    const reopened = await Vault.open(file, FAST);
    await reopened.unlock(PASS);
    const err = (() => {
      try {
        reopened.decrypt('payments-api', 1);
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(VaultDecryptError);
    expect(text(reopened.decrypt('payments-api', 2))).toBe('second');
  });

  it('a ciphertext moved to another version fails (version is in the AAD)', async () => {
    const vault = await ready();
    await vault.put(bearer, bytes('one'));
    await vault.put(bearer, bytes('two'));
    const parsed = JSON.parse(await readFile(file, 'utf8'));
    const [v1, v2] = parsed.records['payments-api'].versions;
    parsed.records['payments-api'].versions[1] = { ...v2, nonce: v1.nonce, ciphertext: v1.ciphertext };
    await writeFile(file, JSON.stringify(parsed));
    const reopened = await Vault.open(file, FAST);
    await reopened.unlock(PASS);
    expect(() => reopened.decrypt('payments-api', 2)).toThrow(VaultDecryptError);
  });

  it('the file never holds the secret or the passphrase in any encoding', async () => {
    const vault = await ready();
    await vault.put(bearer, bytes(CANARY));
    await vault.put({ ...bearer, id: 'other' }, bytes(CANARY));
    const raw = await readFile(file, 'utf8');
    for (const needle of [...encodings(CANARY), ...encodings(PASS)]) expect(raw).not.toContain(needle);
  });

  it('leaves no temp files behind', async () => {
    const vault = await ready();
    await Promise.all([vault.put(bearer, bytes('a')), vault.put({ ...bearer, id: 'b' }, bytes('b'))]);
    const { readdir } = await import('node:fs/promises');
    expect(await readdir(join(dir, 'home'))).toEqual(['vault.json']);
    expect((await Vault.open(file, FAST)).list().map((m) => m.id).sort()).toEqual(['b', 'payments-api']);
  });
});

describe('a damaged vault file', () => {
  it('that is not JSON or has another shape is refused at open', async () => {
    await writeFile(join(dir, 'bad.json'), '{not json');
    await expect(Vault.open(join(dir, 'bad.json'))).rejects.toBeInstanceOf(VaultStateError);
    await writeFile(join(dir, 'bad2.json'), JSON.stringify({ format: 2 }));
    await expect(Vault.open(join(dir, 'bad2.json'))).rejects.toBeInstanceOf(VaultStateError);
  });
});

describe('passphraseFromEnv', () => {
  it('prefers the variable, else reads the first line of the file, else null', async () => {
    const pf = join(dir, 'pass.txt');
    await writeFile(pf, `${PASS}\n`);
    expect(await passphraseFromEnv({ POSTERN_VAULT_PASSPHRASE: 'direct', POSTERN_VAULT_PASSPHRASE_FILE: pf })).toBe('direct');
    expect(await passphraseFromEnv({ POSTERN_VAULT_PASSPHRASE_FILE: pf })).toBe(PASS);
    expect(await passphraseFromEnv({})).toBeNull();
  });

  it('a missing or empty file is a typed error that does not echo content', async () => {
    await expect(passphraseFromEnv({ POSTERN_VAULT_PASSPHRASE_FILE: join(dir, 'absent') })).rejects.toBeInstanceOf(VaultStateError);
    const empty = join(dir, 'empty');
    await writeFile(empty, '\n');
    await expect(passphraseFromEnv({ POSTERN_VAULT_PASSPHRASE_FILE: empty })).rejects.toBeInstanceOf(VaultStateError);
  });
});
