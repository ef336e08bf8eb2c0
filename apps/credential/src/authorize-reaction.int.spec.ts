import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startNatsServer, type NatsServerHandle } from '@postern/testkit';
import { Code, CredentialType, EventType, Outcome, Phase, Retry, Status, toRecordView, type RecordView, type StoredEvent } from '@postern/contract';
import { captureLog } from '@postern/service/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthorizeHandler } from './authorize.handler.js';
import { bindingFor } from './credential-test-fixtures.js';
import { startCredential, type CredentialHarness } from './credential-test-harness.js';
import { foldHistory } from './invocation-fold.js';

let nats: NatsServerHandle;
let svc: CredentialHarness;
const logLines: string[] = [];
const PASS = 'authorize suite passphrase';
const env = { POSTERN_VAULT_PASSPHRASE: PASS };

const decided = (events: StoredEvent[]): boolean =>
  events.some((e) => e.type === EventType.CREDENTIAL_AUTHORIZED || e.type === EventType.CREDENTIAL_REJECTED);
const viewOf = (id: string, events: StoredEvent[]): RecordView => toRecordView(foldHistory(id, events), Date.now());

async function put(input: Record<string, unknown>, secret = 'value'): Promise<any> {
  const reply = await svc.put(input, secret);
  expect(reply.credential, JSON.stringify(reply.error ?? null)).toBeDefined();
  return reply.credential;
}

/** Seeds a validated invocation and waits for the credential step's verdict. */
async function run(meta: any, url?: string): Promise<{ id: string; events: StoredEvent[]; view: RecordView }> {
  const id = await svc.seedValidated(bindingFor(meta, url));
  const events = await svc.waitFor(id, decided);
  return { id, events, view: viewOf(id, events) };
}

function expectRejected(view: RecordView, code: Code, retry: Retry): void {
  expect(view.status).toBe(Status.resolved);
  expect(view.outcome).toBe(Outcome.not_attempted);
  expect(view.error).toMatchObject({ code, phase: Phase.credential_injection, outcome: Outcome.not_attempted, retry });
  expect(view.evidence.dispatch_started).toBe(false);
}

beforeAll(async () => {
  nats = await startNatsServer();
  svc = await startCredential(nats.url, { env, log: captureLog(logLines) });
});
afterAll(async () => {
  await svc?.close(true);
  await nats?.stop();
});

describe('PREFLIGHT_VALIDATED with a usable credential', () => {
  it('appends CREDENTIAL_AUTHORIZED with id, version and injection', async () => {
    const meta = await put({ id: 'payments-api', type: 'http_bearer', scope: ['https://api.example.com'] });
    const { events, view } = await run(meta);
    const event = events.find((e) => e.type === EventType.CREDENTIAL_AUTHORIZED)!;
    expect(event).toMatchObject({
      n: 3,
      attempt: 0,
      generation: 0,
      source: 'transport_observed',
      service: 'credential',
      data: { credential: { id: 'payments-api', version: 1, injection: CredentialType.http_bearer } },
    });
    expect(view.status).toBe(Status.pending);
    expect(view.error).toBeNull();
    expect(view.evidence.credential).toEqual({ id: 'payments-api', version: 1, injection: 'http_bearer' });
  });

  it('is idempotent when the event comes again', async () => {
    const meta = await put({ id: 'again', type: 'http_header', header_name: 'X-Key', scope: ['http://127.0.0.1:*'] });
    const { id, events } = await run(meta, 'http://127.0.0.1:9999/x');
    const handler = svc.app.get(AuthorizeHandler);
    const validated = events.find((e) => e.type === EventType.PREFLIGHT_VALIDATED)!;
    expect(await handler.handle(validated)).toBe('ack');
    expect(await handler.handle(validated)).toBe('ack');
    expect((await svc.events(id)).map((e) => e.type)).toEqual([
      EventType.ACTION_ACCEPTED,
      EventType.PREFLIGHT_VALIDATED,
      EventType.CREDENTIAL_AUTHORIZED,
    ]);
  });

  it('authorizes an SSH credential for a target its scope and user cover', async () => {
    const meta = await put({ id: 'deploy-key', type: 'ssh_key', user: 'deploy', scope: ['ssh://deploy@127.0.0.1:*'] }, 'PRIVATE');
    const { events } = await run(meta, 'ssh://127.0.0.1:2222');
    expect(events.at(-1)!.type).toBe(EventType.CREDENTIAL_AUTHORIZED);
  });
});

describe('PREFLIGHT_VALIDATED with a credential that cannot be used', () => {
  it('a target outside the scope is CREDENTIAL_SCOPE_MISMATCH (retry after_correction)', async () => {
    const meta = await put({ id: 'narrow', type: 'http_bearer', scope: ['https://api.example.com'] });
    const { events, view } = await run(meta, 'https://other.example.com/v1');
    expect(events.at(-1)).toMatchObject({ type: EventType.CREDENTIAL_REJECTED, service: 'credential', data: { code: Code.CREDENTIAL_SCOPE_MISMATCH } });
    expectRejected(view, Code.CREDENTIAL_SCOPE_MISMATCH, Retry.after_correction);
  });

  it('a revoked credential is CREDENTIAL_MISSING', async () => {
    const meta = await put({ id: 'revoked-one', type: 'http_bearer', scope: ['https://api.example.com'] });
    await svc.request(svc.subjects.credentialsRevoke, { id: 'revoked-one' });
    const { view } = await run(meta);
    expectRejected(view, Code.CREDENTIAL_MISSING, Retry.after_correction);
  });

  it('a bound version that was replaced is CREDENTIAL_MISSING', async () => {
    const v1 = await put({ id: 'rotating', type: 'http_bearer', scope: ['https://api.example.com'] }, 'one');
    await put({ id: 'rotating', type: 'http_bearer', scope: ['https://api.example.com'] }, 'two');
    const { view } = await run(v1);
    expectRejected(view, Code.CREDENTIAL_MISSING, Retry.after_correction);
  });

  it('an SSH key bound to an http.request is INJECTION_MODE_UNSUPPORTED', async () => {
    const meta = await put({ id: 'ssh-for-http', type: 'ssh_key', user: 'deploy', scope: ['ssh://deploy@127.0.0.1:*'] }, 'PRIVATE');
    const { view } = await run(meta, 'https://api.example.com/v1');
    expectRejected(view, Code.INJECTION_MODE_UNSUPPORTED, Retry.after_correction);
  });

  it('a locked vault is VAULT_LOCKED with action_required vault_unlock (retry after_correction)', async () => {
    const meta = await put({ id: 'locked-case', type: 'http_bearer', scope: ['https://api.example.com'] });
    await svc.request(svc.subjects.vaultLock, {});
    try {
      const { events, view } = await run(meta);
      expect(events.at(-1)!.data).toMatchObject({ code: Code.VAULT_LOCKED, action_required: 'vault_unlock' });
      expectRejected(view, Code.VAULT_LOCKED, Retry.after_correction);
      expect(view.error?.action_required).toBe('vault_unlock');
    } finally {
      expect((await svc.unlock(PASS)).state).toBe('ready');
    }
  });

  it('a per_call credential is left pending, with a warning, never authorized', async () => {
    const meta = await put({ id: 'needs-approval', type: 'http_bearer', scope: ['https://api.example.com'], approval: 'per_call' });
    const id = await svc.seedValidated(bindingFor(meta));
    await svc.waitFor(id, () => logLines.some((l) => l.includes('approval.unsupported') && l.includes(id)));
    const events = await svc.events(id);
    expect(events).toHaveLength(2);
    expect(viewOf(id, events).status).toBe(Status.pending);
  });

  it('a version whose ciphertext was tampered is CREDENTIAL_DECRYPT_FAILED (retry never)', async () => {
    const meta = await put({ id: 'fragile', type: 'http_bearer', scope: ['https://api.example.com'] }, 'fragile-secret');
    await svc.close();
    const file = join(svc.home, 'vault.json');
    const parsed = JSON.parse(await readFile(file, 'utf8'));
    const version = parsed.records.fragile.versions[0];
    const ct = Buffer.from(version.ciphertext, 'base64');
    ct[2] = ct[2]! ^ 0x40;
    version.ciphertext = ct.toString('base64');
    await writeFile(file, JSON.stringify(parsed));
    svc = await startCredential(nats.url, { home: svc.home, env, log: captureLog(logLines) });
    const { view } = await run(meta);
    expectRejected(view, Code.CREDENTIAL_DECRYPT_FAILED, Retry.never);
  });
});
