import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, Phase } from '@postern/contract';
import { generateSealKeyPair, sealTo } from '@postern/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredential, type CredentialHarness } from './credential-test-harness.js';

let nats: NatsServerHandle;
let svc: CredentialHarness | null;
const PASS = 'operator passphrase 42';

beforeAll(async () => {
  nats = await startNatsServer();
  svc = await startCredential(nats.url);
});
afterAll(async () => {
  await svc?.close(true);
  svc = null;
  await nats?.stop();
});

describe('vault over NATS', () => {
  it('starts uninitialized and reports a raw 32-byte public key', async () => {
    const status = await svc!.request(svc!.subjects.vaultStatus, {});
    expect(status.state).toBe('uninitialized');
    expect(Buffer.from(status.public_key, 'base64').length).toBe(32);
  });

  it('unlock before init is BAD_REQUEST', async () => {
    const reply = await svc!.unlock(PASS);
    expect(reply.error).toMatchObject({ code: Code.BAD_REQUEST, phase: Phase.validation, outcome: 'not_attempted', retry: 'after_correction' });
  });

  it('a passphrase sealed to another key is BAD_REQUEST and changes nothing', async () => {
    const other = generateSealKeyPair();
    const reply = await svc!.request(svc!.subjects.vaultInit, { passphrase_sealed: sealTo(other.publicKey, Buffer.from(PASS)) });
    expect(reply.error).toMatchObject({ code: Code.BAD_REQUEST, field: 'passphrase_sealed' });
    expect((await svc!.request(svc!.subjects.vaultStatus, {})).state).toBe('uninitialized');
  });

  it('malformed requests are BAD_REQUEST', async () => {
    expect((await svc!.requestRaw(svc!.subjects.vaultInit, '{nope')).error.code).toBe(Code.BAD_REQUEST);
    expect((await svc!.request(svc!.subjects.vaultInit, { passphrase_sealed: 42 })).error.code).toBe(Code.BAD_REQUEST);
    expect((await svc!.request(svc!.subjects.vaultInit, [])).error.code).toBe(Code.BAD_REQUEST);
  });

  it('init with a sealed passphrase makes it ready and writes the vault file', async () => {
    const reply = await svc!.init(PASS);
    expect(reply).toMatchObject({ state: 'ready' });
    const file = await readFile(join(svc!.home, 'vault.json'), 'utf8');
    expect(file).not.toContain(PASS);
    expect(JSON.parse(file).format).toBe(1);
  });

  it('a second init is refused', async () => {
    expect((await svc!.init('another')).error.code).toBe(Code.BAD_REQUEST);
  });

  it('lock, wrong unlock, right unlock', async () => {
    expect(await svc!.request(svc!.subjects.vaultLock, {})).toMatchObject({ state: 'locked' });
    const wrong = await svc!.unlock('not it');
    expect(wrong.error).toMatchObject({ code: Code.BAD_REQUEST, message: 'wrong passphrase', field: 'passphrase_sealed' });
    expect((await svc!.request(svc!.subjects.vaultStatus, {})).state).toBe('locked');
    expect(await svc!.unlock(PASS)).toMatchObject({ state: 'ready' });
  });

  it('a restart starts locked with a new key; the env passphrase unlocks it', async () => {
    const before = (await svc!.request(svc!.subjects.vaultStatus, {})).public_key;
    await svc!.close();
    svc = await startCredential(nats.url, { home: svc!.home });
    const after = await svc!.request(svc!.subjects.vaultStatus, {});
    expect(after.state).toBe('locked');
    expect(after.public_key).not.toBe(before);
    await svc!.close();
    svc = await startCredential(nats.url, { home: svc!.home, env: { POSTERN_VAULT_PASSPHRASE: PASS } });
    expect((await svc!.request(svc!.subjects.vaultStatus, {})).state).toBe('ready');
  });

  it('a wrong env passphrase leaves it locked but running', async () => {
    await svc!.close();
    svc = await startCredential(nats.url, { home: svc!.home, env: { POSTERN_VAULT_PASSPHRASE: 'wrong' } });
    expect((await svc!.request(svc!.subjects.vaultStatus, {})).state).toBe('locked');
  });
});

describe('vault created from the env passphrase', () => {
  it('creates and unlocks a vault when none exists', async () => {
    // Replicas share the queue group: the first service must be gone so only the fresh one answers.
    await svc?.close(true);
    svc = null;
    const fresh = await startCredential(nats.url, { env: { POSTERN_VAULT_PASSPHRASE: 'fresh start' } });
    try {
      expect((await fresh.request(fresh.subjects.vaultStatus, {})).state).toBe('ready');
      expect(JSON.parse(await readFile(join(fresh.home, 'vault.json'), 'utf8')).format).toBe(1);
    } finally {
      await fresh.close(true);
    }
  });
});
