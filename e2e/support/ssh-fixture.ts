import { freePort, startHostileSshServer, type HostileSshServer } from '@postern/testkit';
import { RunningStack } from './running-stack.js';

export const VAULT_PASSPHRASE = 'e2e ssh passphrase, test only';
/** A password the servers never accept: the credential that must fail auth. */
export const WRONG_PASSWORD = 'canary-wrong-Pw-9d41-ssh';
/** Commands ending in this match the main target's `idempotent_commands`. */
export const SAFE = ' safe';
/** The main target's `limits.output_bytes`. */
export const OUTPUT_BYTES = 65_536;
/** The bulk target's `limits.output_bytes`: room for outputs served in parts. */
export const BULK_OUTPUT_BYTES = 1_048_576;

/**
 * The whole broker against hostile SSH servers on 127.0.0.1: `main` (pinned,
 * small output limit, some commands declared idempotent), `bulk` (pinned,
 * output limit large enough for multi-part results), `impostor` (presents a
 * host key other than the one pinned for it), and a port nothing listens on.
 * All three accept the same client key and password for user `deploy`.
 */
export class SshFixture {
  private constructor(
    readonly stack: RunningStack,
    readonly main: HostileSshServer,
    readonly bulk: HostileSshServer,
    readonly impostor: HostileSshServer,
    readonly closedPort: number,
  ) {}

  static async start(options: { prefix?: string; env?: Record<string, string>; leaseMs?: number } = {}): Promise<SshFixture> {
    const main = await startHostileSshServer();
    const users = [{ name: main.username, password: main.password, publicKey: main.clientKey.publicKey }];
    const bulk = await startHostileSshServer({ users });
    const impostor = await startHostileSshServer({ hostKey: 'other', users });
    const closedPort = await freePort();
    const timeouts = '{connect: 2000, response_headers: 1500, body: 1500}';
    const policy = `
targets:
  - match: "ssh://127.0.0.1:${main.port}"
    host_keys: ["${main.hostKeyFingerprint}"]
    idempotent_commands: ["^echo-stdin$", "${SAFE}$"]
    timeouts_ms: ${timeouts}
    limits: {output_bytes: ${OUTPUT_BYTES}}
  - match: "ssh://127.0.0.1:${bulk.port}"
    host_keys: ["${bulk.hostKeyFingerprint}"]
    timeouts_ms: ${timeouts}
    limits: {output_bytes: ${BULK_OUTPUT_BYTES}}
  - match: "ssh://127.0.0.1:${impostor.port}"
    host_keys: ["${impostor.hostKeyFingerprint}"]
    timeouts_ms: ${timeouts}
  - match: "ssh://127.0.0.1:*"
    host_keys: ["${main.hostKeyFingerprint}"]
    timeouts_ms: ${timeouts}
dispatch:
  connect_attempts: 2
  budget: 5
  lease_ms: ${options.leaseMs ?? 3000}
`;
    const stack = await RunningStack.start({
      prefix: options.prefix ?? 'e2essh',
      services: ['credential', 'intake', 'dispatcher', 'delivery', 'projector'],
      env: { POSTERN_VAULT_PASSPHRASE: VAULT_PASSPHRASE, ...options.env },
      policy,
    });
    const fixture = new SshFixture(stack, main, bulk, impostor, closedPort);
    const scope = [`ssh://${main.username}@127.0.0.1:*`];
    // The private key goes on stdin exactly as the file holds it.
    await fixture.putCredential('ssh-key', 'ssh_key', scope, main.clientKey.privateKey, ['--user', main.username]);
    await fixture.putCredential('ssh-password', 'ssh_password', scope, `${main.password}\n`, ['--user', main.username]);
    await fixture.putCredential('ssh-wrong', 'ssh_password', scope, `${WRONG_PASSWORD}\n`, ['--user', main.username]);
    return fixture;
  }

  async putCredential(id: string, type: string, scopes: string[], stdin: string, extra: string[] = []): Promise<void> {
    const args = ['credential', 'put', id, '--type', type, ...scopes.flatMap((s) => ['--scope', s]), ...extra];
    const deadline = Date.now() + 15_000;
    let last = { code: -1, stdout: '', stderr: '' };
    // The credential service may still be opening the vault right after start.
    for (let i = 0; i < 30 && Date.now() < deadline; i++) {
      last = await this.stack.cli(args, stdin);
      if (last.code === 0) break;
      await new Promise((r) => setTimeout(r, 300));
    }
    if (last.code !== 0) throw new Error(`credential put ${id} failed: ${last.stderr}${last.stdout}`);
    for (let i = 0; i < 50; i++) {
      const entry = await this.stack.res.kv.credentials.get(id);
      if (entry?.value?.length) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`credential ${id}: metadata never reached KV`);
  }

  /** Submits and waits for the broker's last word (bounded). */
  async run(command: Record<string, unknown>): Promise<any> {
    const submitted = await this.stack.request('actions.submit', command);
    if (!submitted.invocation_id) return submitted;
    return this.awaitResolved(submitted.invocation_id);
  }

  async awaitResolved(id: string, timeoutMs = 20_000): Promise<any> {
    return this.stack.request('actions.await', { invocation_id: id, timeout_ms: timeoutMs }, timeoutMs + 5_000);
  }

  async stop(): Promise<void> {
    await this.stack.stop();
    await Promise.all([this.main, this.bulk, this.impostor].map((s) => s.close()));
  }
}
