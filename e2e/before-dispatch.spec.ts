import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Code, EventType, Outcome, Phase, Retry } from '@postern/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY, HttpFixture } from './support/http-fixture.js';
import { everythingStored, leaks } from './support/leak-scan.js';

// The rows of CONTRACT.md section 6 where an action stops after validation
// and before dispatch (credential_injection, and BINDING_CHANGED), through the
// whole stack. The dispatcher is left out at start, as while it is being
// deployed: what changes in the meantime (a revoked credential, an edited
// policy) must stop the action when a dispatcher does come up. Every answer is
// `not_attempted`, and the hostile server counts no effect.

const PASSPHRASE = 'e2e passphrase, test only';

let f: HttpFixture;
let n = 0;

beforeAll(async () => {
  f = await HttpFixture.start({
    prefix: 'e2ebefore',
    services: ['credential', 'intake', 'delivery', 'projector'],
    env: { POSTERN_VAULT_PASSPHRASE: PASSPHRASE },
  });
}, 90_000);

afterAll(async () => {
  await f?.stop();
});

function get(path: string, credential = 'local-api', origin = f.plain.origin) {
  return {
    client_request_id: `before-${process.pid}-${++n}`,
    caller: 'e2e',
    action: 'http.request',
    credential,
    http: { method: 'GET', url: `${origin}${path}` },
  };
}

async function expectStopped(view: any, phase: Phase, code: Code, retry: Retry) {
  expect(view.status, JSON.stringify(view)).toBe('resolved');
  expect(view.outcome).toBe(Outcome.not_attempted);
  expect(view.error, JSON.stringify(view)).toMatchObject({ phase, outcome: Outcome.not_attempted, code, retry });
  expect(view.evidence.dispatch_started).toBe(false);
  const types = (await f.stack.events(view.invocation_id)).map((e) => e.type);
  expect(types).not.toContain(EventType.LEASE_ACQUIRED);
  expect(types).not.toContain(EventType.DISPATCH_STARTED);
  const projected = await f.stack.projected(view.invocation_id, (v) => v.error?.code === code);
  expect(projected.error).toMatchObject({ phase, outcome: Outcome.not_attempted, code, retry });
}

describe('the credential service refuses', () => {
  it('a locked vault: VAULT_LOCKED with action_required vault_unlock; unlocked again, the vault is ready', async () => {
    const locked = await f.stack.cli(['vault', 'lock']);
    expect(locked.code, locked.stderr).toBe(0);
    const view = await f.run(get('/status/200?locked'));
    await expectStopped(view, Phase.credential_injection, Code.VAULT_LOCKED, Retry.after_correction);
    expect(view.error.action_required).toBe('vault_unlock');
    const unlocked = await f.stack.cli(['vault', 'unlock'], `${PASSPHRASE}\n`);
    expect(unlocked.code, unlocked.stderr).toBe(0);
    expect((await f.stack.request('vault.status', {})).state).toBe('ready');
    expect(f.plain.effects('/status/200')).toBe(0);
  });

  it('a credential whose scope does not cover the target: CREDENTIAL_SCOPE_MISMATCH', async () => {
    await f.putCredential('elsewhere', 'http_bearer', ['http://127.0.0.2:*'], 'tok-elsewhere');
    const view = await f.run(get('/status/201', 'elsewhere'));
    await expectStopped(view, Phase.credential_injection, Code.CREDENTIAL_SCOPE_MISMATCH, Retry.after_correction);
    expect(f.plain.effects('/status/201')).toBe(0);
  });

  it('an SSH credential for an HTTP request: INJECTION_MODE_UNSUPPORTED', async () => {
    await f.putCredential('deploy-login', 'ssh_password', ['ssh://deploy@127.0.0.1:22'], 'pw-deploy', ['--user', 'deploy']);
    const view = await f.run(get('/status/202', 'deploy-login'));
    await expectStopped(view, Phase.credential_injection, Code.INJECTION_MODE_UNSUPPORTED, Retry.after_correction);
    expect(f.plain.effects('/status/202')).toBe(0);
  });
});

describe('a change between authorization and dispatch', () => {
  it('a credential revoked, and a policy entry edited, while no dispatcher ran: CREDENTIAL_MISSING and BINDING_CHANGED once one does', async () => {
    await f.putCredential('soon-revoked', 'http_bearer', ['http://127.0.0.1:*'], 'tok-soon-revoked');
    const revoked = await f.stack.request('actions.submit', get('/status/203', 'soon-revoked'));
    const edited = await f.stack.request('actions.submit', get('/status/204', 'local-api', f.redirecting.origin));
    await f.stack.waitForEvent(revoked.invocation_id, EventType.CREDENTIAL_AUTHORIZED);
    await f.stack.waitForEvent(edited.invocation_id, EventType.CREDENTIAL_AUTHORIZED);

    const revoke = await f.stack.cli(['credential', 'revoke', 'soon-revoked']);
    expect(revoke.code, revoke.stderr).toBe(0);
    const policyFile = join(f.stack.home, 'postern.yaml');
    const policy = await readFile(policyFile, 'utf8');
    expect(policy).toContain('redirects: same_origin');
    await writeFile(policyFile, policy.replace('redirects: same_origin', 'redirects: none'));

    await f.stack.startService('dispatcher');
    await expectStopped(
      await f.awaitResolved(revoked.invocation_id),
      Phase.credential_injection,
      Code.CREDENTIAL_MISSING,
      Retry.after_correction,
    );
    const changed = await f.awaitResolved(edited.invocation_id);
    await expectStopped(changed, Phase.validation, Code.BINDING_CHANGED, Retry.after_correction);
    expect(f.plain.effects('/status/203')).toBe(0);
    expect(f.redirecting.effects('/status/204')).toBe(0);

    // The dispatcher that stopped both works: a new request with a live credential commits.
    const fresh = await f.run(get('/status/200?fresh'));
    expect(fresh, JSON.stringify(fresh)).toMatchObject({ outcome: Outcome.committed, error: null });
  }, 60_000);
});

describe('a secret that no longer decrypts', () => {
  it('a vault record whose ciphertext was damaged on disk: CREDENTIAL_DECRYPT_FAILED, retry never', async () => {
    await f.putCredential('damaged', 'http_bearer', ['http://127.0.0.1:*'], 'tok-damaged');
    const vaultFile = join(f.stack.home, 'vault.json');
    const vault = JSON.parse(await readFile(vaultFile, 'utf8'));
    const version = vault.records.damaged.versions[0];
    const bytes = Buffer.from(version.ciphertext, 'base64');
    bytes[0] = bytes[0]! ^ 0xff;
    version.ciphertext = bytes.toString('base64');
    await writeFile(vaultFile, JSON.stringify(vault));
    // The credential service reads the vault file when it starts.
    await f.stack.restartServices();

    const view = await f.run(get('/status/205', 'damaged'));
    await expectStopped(view, Phase.credential_injection, Code.CREDENTIAL_DECRYPT_FAILED, Retry.never);
    expect(f.plain.effects('/status/205')).toBe(0);
    // Only that record is damaged: another credential is still authorized.
    const other = await f.stack.request('actions.submit', get('/status/206'));
    await f.stack.waitForEvent(other.invocation_id, EventType.CREDENTIAL_AUTHORIZED);
  }, 60_000);
});

describe('the secrets', () => {
  it('of every refused, revoked and damaged credential appear nowhere', async () => {
    const places = await everythingStored(f.stack);
    expect(places.length).toBeGreaterThan(20);
    const secrets = [CANARY, PASSPHRASE, 'tok-elsewhere', 'pw-deploy', 'tok-soon-revoked', 'tok-damaged'];
    expect(leaks(places, secrets)).toEqual([]);
  });
});
