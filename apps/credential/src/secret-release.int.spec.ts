import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, EventType, EvidenceSource, Retry, ServiceName, toRecordView, type Lease, type StoredEvent } from '@postern/contract';
import { encodeKvKey } from '@postern/journal';
import { generateSealKeyPair, openSealed, publicKeyBase64, type SealKeyPair } from '@postern/vault';
import { allStreamBytes, captureLog } from '@postern/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindingFor } from './credential-test-fixtures.js';
import { leakForms, startCredential, type CredentialHarness } from './credential-test-harness.js';
import { foldHistory } from './invocation-fold.js';

let nats: NatsServerHandle;
let svc: CredentialHarness;
const logLines: string[] = [];
const replies: string[] = [];
const PASS = 'release suite passphrase';
const CANARY = 'CANARY-release-3b9f0d2e71c4-token';
const HOLDER = 'dispatcher-a1';

const authorized = (events: StoredEvent[]): boolean => events.some((e) => e.type === EventType.CREDENTIAL_AUTHORIZED);

async function writeLease(id: string, lease: Partial<Lease> = {}): Promise<Lease> {
  const value: Lease = { invocation_id: id, holder: HOLDER, attempt: 1, generation: 1, expires_at_ms: Date.now() + 30_000, ...lease };
  await svc.res.kv.leases.put(encodeKvKey(id), JSON.stringify(value));
  return value;
}

async function release(id: string, key: SealKeyPair, over: Record<string, unknown> = {}): Promise<any> {
  const body = { invocation_id: id, attempt: 1, generation: 1, holder: HOLDER, public_key: publicKeyBase64(key), ...over };
  const reply = await svc.request(svc.subjects.credentialsRelease, body);
  replies.push(JSON.stringify(reply));
  return reply;
}

/** An invocation authorized for the canary credential, with a live lease of HOLDER. */
async function authorizedInvocation(meta: any): Promise<string> {
  const id = await svc.seedValidated(bindingFor(meta));
  await svc.waitFor(id, authorized);
  await writeLease(id);
  return id;
}

let canaryMeta: any;

beforeAll(async () => {
  nats = await startNatsServer();
  svc = await startCredential(nats.url, { env: { POSTERN_VAULT_PASSPHRASE: PASS }, log: captureLog(logLines) });
  const reply = await svc.put({ id: 'payments-api', type: 'http_bearer', scope: ['https://api.example.com'] }, CANARY);
  canaryMeta = reply.credential;
  expect(canaryMeta.version).toBe(1);
});
afterAll(async () => {
  await svc?.close(true);
  await nats?.stop();
});

describe('release to the lease holder', () => {
  it('seals the secret to the requester key only', async () => {
    const id = await authorizedInvocation(canaryMeta);
    const key = generateSealKeyPair();
    const reply = await release(id, key);
    expect(reply.error).toBeUndefined();
    expect(reply.credential).toEqual({ id: 'payments-api', version: 1, type: 'http_bearer', injection: 'http_bearer' });
    expect(Buffer.from(openSealed(key, reply.secret_sealed)).toString('utf8')).toBe(CANARY);
    expect(() => openSealed(generateSealKeyPair(), reply.secret_sealed)).toThrow();
  });

  it('includes the injection details of the credential', async () => {
    const meta = (await svc.put({ id: 'hdr', type: 'http_header', header_name: 'X-Api-Key', scope: ['https://api.example.com'] }, 'hdr-value')).credential;
    const id = await authorizedInvocation(meta);
    const key = generateSealKeyPair();
    const reply = await release(id, key);
    expect(reply.credential).toEqual({ id: 'hdr', version: 1, type: 'http_header', injection: 'http_header', header_name: 'X-Api-Key' });
    expect(Buffer.from(openSealed(key, reply.secret_sealed)).toString()).toBe('hdr-value');
  });
});

describe('release refused', () => {
  const refused = (reply: any, code: Code): void => {
    expect(reply.secret_sealed).toBeUndefined();
    expect(reply.error?.code).toBe(code);
  };

  it('for another holder, attempt or generation (NOT_FOUND)', async () => {
    const id = await authorizedInvocation(canaryMeta);
    const key = generateSealKeyPair();
    refused(await release(id, key, { holder: 'dispatcher-b2' }), Code.NOT_FOUND);
    refused(await release(id, key, { generation: 2 }), Code.NOT_FOUND);
    refused(await release(id, key, { attempt: 2 }), Code.NOT_FOUND);
  });

  it('for an expired, released or absent lease (NOT_FOUND)', async () => {
    const id = await authorizedInvocation(canaryMeta);
    const key = generateSealKeyPair();
    await writeLease(id, { expires_at_ms: Date.now() - 1 });
    refused(await release(id, key), Code.NOT_FOUND);
    await writeLease(id, { released: true });
    refused(await release(id, key), Code.NOT_FOUND);
    await svc.res.kv.leases.delete(encodeKvKey(id));
    refused(await release(id, key), Code.NOT_FOUND);
  });

  it('for an invocation without CREDENTIAL_AUTHORIZED (NOT_FOUND)', async () => {
    const meta = (await svc.put({ id: 'gated', type: 'http_bearer', scope: ['https://api.example.com'], approval: 'per_call' }, 'g')).credential;
    const id = await svc.seedValidated(bindingFor(meta));
    await svc.waitFor(id, () => logLines.some((l) => l.includes('approval.unsupported') && l.includes(id)));
    await writeLease(id);
    refused(await release(id, generateSealKeyPair()), Code.NOT_FOUND);
  });

  it('for a resolved invocation (ALREADY_RESOLVED)', async () => {
    const id = await authorizedInvocation(canaryMeta);
    const history = await svc.events(id);
    const appended = await svc.journal.append(
      {
        type: EventType.CALLER_CANCELLED,
        invocation_id: id,
        n: history.length + 1,
        attempt: 0,
        generation: 0,
        at: new Date().toISOString(),
        source: EvidenceSource.transport_observed,
        service: ServiceName.intake,
        data: { phase: 'connection_setup', dispatched: false },
      },
      history.at(-1)!.seq,
    );
    expect(appended.status).toBe('appended');
    refused(await release(id, generateSealKeyPair()), Code.ALREADY_RESOLVED);
  });

  it('for a credential revoked or replaced after authorization (CREDENTIAL_MISSING)', async () => {
    const meta = (await svc.put({ id: 'short-lived', type: 'http_bearer', scope: ['https://api.example.com'] }, 'one')).credential;
    const replaced = await authorizedInvocation(meta);
    await svc.put({ id: 'short-lived', type: 'http_bearer', scope: ['https://api.example.com'] }, 'two');
    refused(await release(replaced, generateSealKeyPair()), Code.CREDENTIAL_MISSING);
    const v2 = (await svc.request(svc.subjects.credentialsList, {})).credentials.find((c: any) => c.id === 'short-lived');
    const revoked = await authorizedInvocation(v2);
    await svc.request(svc.subjects.credentialsRevoke, { id: 'short-lived' });
    refused(await release(revoked, generateSealKeyPair()), Code.CREDENTIAL_MISSING);
  });

  it('while the vault is locked (VAULT_LOCKED)', async () => {
    const id = await authorizedInvocation(canaryMeta);
    await svc.request(svc.subjects.vaultLock, {});
    try {
      const reply = await release(id, generateSealKeyPair());
      refused(reply, Code.VAULT_LOCKED);
      expect(reply.error.action_required).toBe('vault_unlock');
    } finally {
      expect((await svc.unlock(PASS)).state).toBe('ready');
    }
  });

  it('for a malformed request or public key (BAD_REQUEST)', async () => {
    const id = await authorizedInvocation(canaryMeta);
    refused(await release(id, generateSealKeyPair(), { public_key: Buffer.alloc(16).toString('base64') }), Code.BAD_REQUEST);
    refused(await release(id, generateSealKeyPair(), { public_key: undefined }), Code.BAD_REQUEST);
    refused(await release(id, generateSealKeyPair(), { attempt: 'one' }), Code.BAD_REQUEST);
    const raw = await svc.requestRaw(svc.subjects.credentialsRelease, 'not json');
    refused(raw, Code.BAD_REQUEST);
  });
});

describe('the canary secret', () => {
  it('appears in no stream message, KV value, object, log line, reply, record view or the vault file', async () => {
    const id = await authorizedInvocation(canaryMeta);
    expect((await release(id, generateSealKeyPair())).secret_sealed).toBeDefined();
    const stored = await allStreamBytes(svc.res);
    expect(stored.length).toBeGreaterThan(10);
    const view = JSON.stringify(toRecordView(foldHistory(id, await svc.events(id)), Date.now()));
    const list = JSON.stringify(await svc.request(svc.subjects.credentialsList, {}));
    const vaultFile = await readFile(join(svc.home, 'vault.json'), 'utf8');
    const haystacks = [...stored, ...logLines, ...replies, view, list, vaultFile];
    expect(logLines.length).toBeGreaterThan(5);
    for (const form of leakForms(CANARY)) {
      for (const hay of haystacks) expect(hay.includes(form), `leak of ${form.slice(0, 6)}…`).toBe(false);
    }
    for (const form of leakForms(PASS)) {
      for (const hay of haystacks) expect(hay.includes(form)).toBe(false);
    }
  });

  it('a rejection reads back with its contract retry', async () => {
    const meta = (await svc.put({ id: 'scoped', type: 'http_bearer', scope: ['https://api.example.com'] }, 's')).credential;
    const id = await svc.seedValidated(bindingFor(meta, 'https://elsewhere.example.com/'));
    const events = await svc.waitFor(id, (ev) => ev.some((e) => e.type === EventType.CREDENTIAL_REJECTED));
    expect(toRecordView(foldHistory(id, events), Date.now()).error?.retry).toBe(Retry.after_correction);
    await writeLease(id);
    expect((await release(id, generateSealKeyPair())).error.code).toBe(Code.NOT_FOUND);
  });
});
