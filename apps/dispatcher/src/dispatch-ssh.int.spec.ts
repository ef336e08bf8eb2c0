import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Code, CredentialType, EventType, Outcome, Phase, Retry, Stage, toRecordView, type StoredEvent } from '@postern/contract';
import { readResultMeta, readResultStream, verifyStoredResult, type SshResultMeta } from '@postern/journal';
import {
  freePort,
  hostileOutputBytes,
  startHostileSshServer,
  startNatsServer,
  type HostileSshServer,
  type NatsServerHandle,
} from '@postern/testkit';
import { foldHistory } from './invocation-plan.js';
import { capturingLog, DispatcherHarness, lastOf, ofType, policyYaml, resolved, type CapturedLog } from './dispatcher-test-harness.js';

const OUTPUT_BYTES = 4096;

function viewOf(h: StoredEvent[]) {
  return toRecordView(foldHistory(h)!, Date.now());
}

function sshPolicy(pin: string): string {
  return policyYaml({
    extra: `  - match: "ssh://127.0.0.1:*"
    host_keys: ["${pin}"]
    idempotent_commands: ["^exit 3$", "^accept-then-drop$"]
    timeouts_ms: {connect: 1000, response_headers: 1000, body: 1000}
    limits: {output_bytes: ${OUTPUT_BYTES}}
`,
  });
}

/** Every textual form of a secret that must never be written anywhere. */
function forms(secret: string): string[] {
  const lines = secret.split('\n').map((l) => l.trim()).filter((l) => l.length >= 16 && !l.startsWith('-----'));
  return [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex'), encodeURIComponent(secret), ...lines];
}

describe('dispatcher over SSH (real NATS, real sockets)', () => {
  let nats: NatsServerHandle;
  let h: DispatcherHarness;
  let ssh: HostileSshServer;
  let otherKey: HostileSshServer;
  let log: CapturedLog;
  const all: string[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    ssh = await startHostileSshServer();
    otherKey = await startHostileSshServer({ hostKey: 'other' });
    h = await DispatcherHarness.start(nats.url, sshPolicy(ssh.hostKeyFingerprint));
    h.release = { credentialType: CredentialType.ssh_key, user: ssh.username, secret: ssh.clientKey.privateKey };
    log = capturingLog();
    await h.startDispatcher({ log });
  });
  afterAll(async () => {
    await h?.close();
    await ssh?.close();
    await otherKey?.close();
    await nats?.stop();
  });

  async function run(command: string, opts: { port?: number; stdin?: string; credentialType?: CredentialType } = {}): Promise<StoredEvent[]> {
    const id = await h.submitSsh({
      port: opts.port ?? ssh.port,
      command,
      ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
      ...(opts.credentialType !== undefined ? { credentialType: opts.credentialType } : {}),
    });
    all.push(id);
    return h.waitFor(id, resolved);
  }

  it('commits exit 0 with its output stored, DISPATCH_STARTED before the exec', async () => {
    const before = ssh.effects('exit 0');
    const history = await run('exit 0');
    const types = history.map((e) => e.type);
    expect(types.indexOf(EventType.DISPATCH_STARTED)).toBeLessThan(types.indexOf(EventType.REMOTE_RESPONSE_COMPLETE));
    expect(lastOf(history, EventType.DISPATCH_STARTED).data).toMatchObject({
      connect_try: 1,
      connection: { reused: false, ssh_host_key_sha256: ssh.hostKeyFingerprint },
    });
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.source).toBe('remote_response');
    expect(done.data).toMatchObject({
      outcome: Outcome.committed,
      code: null,
      stage: Stage.exec_running,
      exec_accepted: true,
      exit_status: 0,
      exit_signal: null,
      stdout_complete: true,
      stderr_complete: true,
    });
    const check = await verifyStoredResult(h.res, done.data['result_object'] as string, done.data['response_digest'] as string);
    expect(check.ok).toBe(true);
    const view = viewOf(history);
    expect(view).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true, exit_status: 0, stdout_complete: true, stderr_complete: true });
    expect(ssh.effects('exit 0')).toBe(before + 1);
  });

  it('commits a non-zero exit as REMOTE_EXIT_NONZERO: backoff for an idempotent command', async () => {
    const history = await run('exit 3');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_EXIT_NONZERO, phase: Phase.remote_execution, retry: Retry.backoff });
    expect(view.evidence).toMatchObject({ exit_status: 3 });
    expect(lastOf(history, EventType.PREFLIGHT_VALIDATED).data['binding']).toMatchObject({ known_idempotent: true, target: `ssh://127.0.0.1:${ssh.port}` });
  });

  it('commits an exit-signal as REMOTE_EXIT_NONZERO: reconcile for a command not known idempotent', async () => {
    const history = await run('signal TERM');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_EXIT_NONZERO, retry: Retry.reconcile });
    expect(view.evidence).toMatchObject({ exit_signal: 'TERM' });
  });

  it('is REMOTE_RESULT_INCOMPLETE when the channel closes with no exit', async () => {
    const history = await run('close-no-exit');
    const u = lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN);
    expect(u.data).toMatchObject({ outcome: Outcome.unknown, code: Code.REMOTE_RESULT_INCOMPLETE, exec_accepted: true, exit_status: null });
    expect(viewOf(history).error).toMatchObject({ code: Code.REMOTE_RESULT_INCOMPLETE, retry: Retry.reconcile });
    expect(ofType(history, EventType.REMOTE_RESPONSE_COMPLETE)).toHaveLength(0);
  });

  it('is REMOTE_OUTCOME_UNKNOWN when the connection drops after the exec was accepted (Rule U: backoff if idempotent)', async () => {
    const history = await run('accept-then-drop');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.backoff });
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true });
  });

  it('is REMOTE_OUTCOME_UNKNOWN, not rejected, when the connection drops with no exec reply', async () => {
    const history = await run('drop-no-reply');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.unknown);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, retry: Retry.reconcile});
    expect(view.evidence.stage).toBe(Stage.exec_request);
  });

  it('commits exit-then-drop from the exit it saw', async () => {
    const history = await run('exit-then-drop');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.evidence).toMatchObject({ exit_status: 0 });
  });

  it('rejects a refused exec as SSH_EXEC_REJECTED with nothing stored, and delivery does not wait on it', async () => {
    const history = await run('refuse-exec');
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ outcome: Outcome.rejected, code: Code.SSH_EXEC_REJECTED, exec_accepted: false });
    expect(done.data['result_object']).toBeUndefined();
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.rejected);
    expect(view.error).toMatchObject({ code: Code.SSH_EXEC_REJECTED, retry: Retry.after_correction});
    expect(view.evidence.stage).toBe(Stage.exec_request);
  });

  it('rejects a refused channel as SSH_CHANNEL_OPEN_FAILED (backoff), after DISPATCH_STARTED', async () => {
    ssh.refuseChannels(true);
    try {
      const history = await run('exit 0');
      expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(1);
      const view = viewOf(history);
      expect(view.outcome).toBe(Outcome.rejected);
      expect(view.error).toMatchObject({ code: Code.SSH_CHANNEL_OPEN_FAILED, retry: Retry.backoff});
    expect(view.evidence.stage).toBe(Stage.ssh_channel_open);
    } finally {
      ssh.refuseChannels(false);
    }
  });

  it('gives up on a hanging command at the broker timeout: unknown', async () => {
    const history = await run('hang');
    const u = lastOf(history, EventType.REMOTE_OUTCOME_UNKNOWN);
    expect(u.data).toMatchObject({ code: Code.REMOTE_OUTCOME_UNKNOWN, broker_timeout: 'exec', exec_accepted: true });
  });

  it('stores output up to output_bytes and reports REMOTE_OUTPUT_TRUNCATED (never retried)', async () => {
    const history = await run(`stdout ${OUTPUT_BYTES * 3}`);
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ code: Code.REMOTE_OUTPUT_TRUNCATED, stdout_complete: false, stderr_complete: true, stdout_bytes: OUTPUT_BYTES * 3 });
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTPUT_TRUNCATED, retry: Retry.never });
    const meta = (await readResultMeta(h.res, done.data['result_object'] as string)) as SshResultMeta;
    expect(meta.complete).toBe(false);
    expect(meta.streams.stdout).toMatchObject({ bytes: OUTPUT_BYTES, complete: false });
  });

  it('stores stderr whole and byte-exact within the limit', async () => {
    const history = await run('stderr 1000');
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ code: null, stderr_complete: true });
    const bytes = await readResultStream(h.res, done.data['result_object'] as string, 'stderr');
    expect(Buffer.from(bytes!).equals(hostileOutputBytes(1000, 'stderr'))).toBe(true);
  });

  it('commits REMOTE_OUTPUT_INCOMPLETE when the output breaks after the exit', async () => {
    const history = await run('stdout-then-break');
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.committed);
    expect(view.error).toMatchObject({ code: Code.REMOTE_OUTPUT_INCOMPLETE, retry: Retry.never });
  });

  it('sends the bound stdin and redacts the secret echoed back', async () => {
    const key = ssh.clientKey.privateKey;
    const history = await run('echo-stdin', { stdin: `hello\n${key}\nbye` });
    const done = lastOf(history, EventType.REMOTE_RESPONSE_COMPLETE);
    expect(done.data).toMatchObject({ code: null, exit_status: 0 });
    const out = Buffer.from((await readResultStream(h.res, done.data['result_object'] as string, 'stdout'))!).toString();
    expect(out.startsWith('hello\n')).toBe(true);
    expect(out).toContain('[REDACTED]');
    for (const f of forms(key)) expect(out).not.toContain(f);
    const seen = ssh.execs.filter((e) => e.command === 'echo-stdin');
    expect(seen.at(-1)!.stdin.toString()).toContain('hello');
  });

  it('refuses an unpinned host key before dispatch: SSH_HOST_KEY_REJECTED, after_correction', async () => {
    const history = await run('exit 0', { port: otherKey.port });
    expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    const failed = ofType(history, EventType.CONNECTION_FAILED);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({ code: Code.SSH_HOST_KEY_REJECTED, stage: Stage.ssh_host_key, final: true });
    const view = viewOf(history);
    expect(view.outcome).toBe(Outcome.not_attempted);
    expect(view.error).toMatchObject({ code: Code.SSH_HOST_KEY_REJECTED, phase: Phase.connection_setup, retry: Retry.after_correction });
    expect(otherKey.effects()).toBe(0);
  });

  it('is SSH_AUTH_FAILED for a wrong password, before dispatch', async () => {
    h.release = { credentialType: CredentialType.ssh_password, user: ssh.username, secret: 'not-the-password-123' };
    try {
      const history = await run('exit 0', { credentialType: CredentialType.ssh_password });
      expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
      const view = viewOf(history);
      expect(view.outcome).toBe(Outcome.not_attempted);
      expect(view.error).toMatchObject({ code: Code.SSH_AUTH_FAILED, retry: Retry.after_correction });
      expect(view.evidence.stage).toBe(Stage.ssh_auth);
    } finally {
      h.release = { credentialType: CredentialType.ssh_key, user: ssh.username, secret: ssh.clientKey.privateKey };
    }
  });

  it('logs in with the right password', async () => {
    h.release = { credentialType: CredentialType.ssh_password, user: ssh.username, secret: ssh.password };
    try {
      const history = await run('exit 0', { credentialType: CredentialType.ssh_password });
      expect(viewOf(history)).toMatchObject({ outcome: Outcome.committed, error: null });
    } finally {
      h.release = { credentialType: CredentialType.ssh_key, user: ssh.username, secret: ssh.clientKey.privateKey };
    }
  });

  it('retries a refused connection before dispatch, each try its own row', async () => {
    const port = await freePort();
    const history = await run('exit 0', { port });
    const failed = ofType(history, EventType.CONNECTION_FAILED);
    expect(failed.map((e) => e.data['code'])).toEqual([Code.CONNECT_REFUSED, Code.CONNECT_REFUSED, Code.CONNECT_REFUSED]);
    expect(viewOf(history)).toMatchObject({ outcome: Outcome.not_attempted });
  });

  it('an HTTP credential released for an ssh.exec is INJECTION_MODE_UNSUPPORTED', async () => {
    h.release = { credentialType: CredentialType.http_bearer, user: ssh.username };
    try {
      const history = await run('exit 0');
      expect(lastOf(history, EventType.CREDENTIAL_REJECTED).data).toMatchObject({ code: Code.INJECTION_MODE_UNSUPPORTED });
      expect(ofType(history, EventType.DISPATCH_STARTED)).toHaveLength(0);
    } finally {
      h.release = { credentialType: CredentialType.ssh_key, user: ssh.username, secret: ssh.clientKey.privateKey };
    }
  });

  it('never writes the private key or the password into events, results or logs', async () => {
    const secrets = [...forms(ssh.clientKey.privateKey), ...forms(ssh.password)];
    for (const id of all) {
      const text = JSON.stringify(await h.events(id));
      for (const f of secrets) expect(text).not.toContain(f);
      for (const e of await h.events(id)) {
        const object = e.data['result_object'];
        if (typeof object !== 'string') continue;
        for (const stream of ['stdout', 'stderr'] as const) {
          const bytes = await readResultStream(h.res, object, stream);
          if (bytes === null) continue;
          const out = Buffer.from(bytes).toString();
          for (const f of secrets) expect(out).not.toContain(f);
        }
      }
    }
    const logs = log.lines.join('\n');
    for (const f of secrets) expect(logs).not.toContain(f);
  });
});
