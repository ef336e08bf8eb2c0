import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, CredentialType } from '@postern/contract';
import { encodeKvKey, kvGetJson } from '@postern/journal';
import { generateSealKeyPair, sealTo } from '@postern/vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCredential, type CredentialHarness } from './credential-test-harness.js';

let nats: NatsServerHandle;
let svc: CredentialHarness;
const PASS = 'credentials suite passphrase';
const bearer = { id: 'payments-api', type: CredentialType.http_bearer, scope: ['https://api.example.com', 'http://127.0.0.1:*'] };

beforeAll(async () => {
  nats = await startNatsServer();
  svc = await startCredential(nats.url);
});
afterAll(async () => {
  await svc?.close(true);
  await nats?.stop();
});

const kvMeta = async (id: string): Promise<any> => (await kvGetJson<any>(svc.res.kv.credentials, encodeKvKey(id)))?.value ?? null;

describe('credentials before the vault is ready', () => {
  it('put is VAULT_LOCKED with vault_unlock', async () => {
    const reply = await svc.put(bearer, 'secret-1');
    expect(reply.error).toMatchObject({ code: Code.VAULT_LOCKED, phase: 'credential_injection', action_required: 'vault_unlock' });
    expect(await kvMeta('payments-api')).toBeNull();
  });

  it('list is empty', async () => {
    expect(await svc.request(svc.subjects.credentialsList, {})).toEqual({ credentials: [] });
  });
});

describe('credentials in a ready vault', () => {
  beforeAll(async () => {
    expect((await svc.init(PASS)).state).toBe('ready');
  });

  it('put stores version 1 and publishes the metadata to KV', async () => {
    const reply = await svc.put(bearer, 'secret-v1');
    expect(reply.credential).toMatchObject({ ...bearer, version: 1, approval: 'none' });
    expect(typeof reply.credential.created_at).toBe('string');
    expect(await kvMeta('payments-api')).toEqual(reply.credential);
  });

  it('a new value for the same id makes version 2', async () => {
    const reply = await svc.put(bearer, 'secret-v2');
    expect(reply.credential.version).toBe(2);
    expect((await kvMeta('payments-api')).version).toBe(2);
  });

  it('stores the injection details of each type', async () => {
    const header = await svc.put({ id: 'search-key', type: 'http_header', header_name: 'X-Api-Key', scope: ['http://127.0.0.1:*'] }, 'k');
    expect(header.credential).toMatchObject({ type: 'http_header', header_name: 'X-Api-Key' });
    const query = await svc.put({ id: 'maps', type: 'http_query', param: 'key', scope: ['https://maps.example.com'] }, 'q');
    expect(query.credential).toMatchObject({ type: 'http_query', param: 'key' });
    const ssh = await svc.put({ id: 'deploy-key', type: 'ssh_key', user: 'deploy', scope: ['ssh://deploy@127.0.0.1:*'] }, 'KEY');
    expect(ssh.credential).toMatchObject({ type: 'ssh_key', user: 'deploy' });
    const perCall = await svc.put({ ...bearer, id: 'sensitive', approval: 'per_call' }, 'p');
    expect(perCall.credential.approval).toBe('per_call');
  });

  it('list returns every credential, sorted by id', async () => {
    const reply = await svc.request(svc.subjects.credentialsList, {});
    expect(reply.credentials.map((c: any) => c.id)).toEqual(['deploy-key', 'maps', 'payments-api', 'search-key', 'sensitive']);
  });

  it('refuses bad input with BAD_REQUEST and a field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...bearer, id: 'bad id' }, 'id'],
      [{ ...bearer, type: 'oauth' }, 'type'],
      [{ ...bearer, scope: [] }, 'scope'],
      [{ ...bearer, type: 'http_header' }, 'header_name'],
      [{ ...bearer, type: 'http_query' }, 'param'],
      [{ ...bearer, type: 'ssh_key', scope: ['ssh://deploy@127.0.0.1'] }, 'user'],
    ];
    for (const [input, field] of cases) {
      const reply = await svc.put(input, 'x');
      expect(reply.error, field).toMatchObject({ code: Code.BAD_REQUEST, field });
    }
    expect((await svc.requestRaw(svc.subjects.credentialsPut, 'nope')).error.code).toBe(Code.BAD_REQUEST);
  });

  it('a secret sealed to another key, or missing, is BAD_REQUEST on secret_sealed', async () => {
    const other = generateSealKeyPair();
    const reply = await svc.request(svc.subjects.credentialsPut, { ...bearer, secret_sealed: sealTo(other.publicKey, Buffer.from('s')) });
    expect(reply.error).toMatchObject({ code: Code.BAD_REQUEST, field: 'secret_sealed' });
    const missing = await svc.request(svc.subjects.credentialsPut, bearer);
    expect(missing.error).toMatchObject({ code: Code.BAD_REQUEST, field: 'secret_sealed' });
    expect((await kvMeta('payments-api')).version).toBe(2);
  });

  it('revoke flags it in the reply and in KV', async () => {
    const reply = await svc.request(svc.subjects.credentialsRevoke, { id: 'maps' });
    expect(reply.credential).toMatchObject({ id: 'maps', revoked: true });
    expect((await kvMeta('maps')).revoked).toBe(true);
  });

  it('revoke of an unknown id is NOT_FOUND', async () => {
    const reply = await svc.request(svc.subjects.credentialsRevoke, { id: 'nobody' });
    expect(reply.error).toMatchObject({ code: Code.NOT_FOUND, retry: 'never' });
  });

  it('revoke works while the vault is locked', async () => {
    await svc.request(svc.subjects.vaultLock, {});
    const reply = await svc.request(svc.subjects.credentialsRevoke, { id: 'search-key' });
    expect(reply.credential.revoked).toBe(true);
    expect((await svc.request(svc.subjects.credentialsList, {})).credentials).toHaveLength(5);
    expect((await svc.unlock(PASS)).state).toBe('ready');
  });

  it('a restart re-publishes the vault metadata and removes keys the vault does not hold', async () => {
    await svc.res.kv.credentials.delete(encodeKvKey('payments-api'));
    await svc.res.kv.credentials.put('stray', JSON.stringify({ id: 'stray' }));
    await svc.close();
    svc = await startCredential(nats.url, { home: svc.home });
    expect((await kvMeta('payments-api')).version).toBe(2);
    expect(await kvMeta('stray')).toBeNull();
    expect((await kvMeta('maps')).revoked).toBe(true);
  });
});
