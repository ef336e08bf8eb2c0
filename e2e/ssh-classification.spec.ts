import { createServer, type AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { Code, CredentialType, Outcome, Phase, Retry, Stage } from '@postern/contract';
import { hostileOutputBytes } from '@postern/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStored, leaks, opensshKeySecrets } from './support/leak-scan.js';
import { BULK_OUTPUT_BYTES, OUTPUT_BYTES, SAFE, SshFixture, VAULT_PASSPHRASE, WRONG_PASSWORD } from './support/ssh-fixture.js';

// Every SSH row of the classification table (CONTRACT.md section 6) through
// the whole stack: five services as processes, a real nats-server, hostile
// SSH servers on 127.0.0.1.

let f: SshFixture;
let n = 0;

beforeAll(async () => {
  f = await SshFixture.start();
}, 90_000);

afterAll(async () => {
  await f?.stop();
});

type Stdin = { text: string } | { base64: string };

function command(port: number, cmd: string, options: { credential?: string; stdin?: Stdin; timeout_ms?: number } = {}) {
  return {
    client_request_id: `ssh-${process.pid}-${++n}`,
    caller: 'e2e',
    action: 'ssh.exec',
    credential: options.credential ?? 'ssh-key',
    ssh: { host: '127.0.0.1', port, command: cmd, ...(options.stdin ? { stdin: options.stdin } : {}) },
    ...(options.timeout_ms ? { timeout_ms: options.timeout_ms } : {}),
  };
}

const onMain = (cmd: string, options?: Parameters<typeof command>[2]) => command(f.main.port, cmd, options);
const onBulk = (cmd: string) => command(f.bulk.port, cmd);

function expectError(view: any, phase: Phase, outcome: Outcome, code: Code, retry: Retry) {
  expect(view.status, JSON.stringify(view)).toBe('resolved');
  expect(view.outcome, JSON.stringify(view)).toBe(outcome);
  expect(view.error, JSON.stringify(view)).toMatchObject({ phase, outcome, code, retry });
}

function expectCommitted(view: any) {
  expect(view, JSON.stringify(view)).toMatchObject({ status: 'resolved', outcome: Outcome.committed, error: null });
}

/** An incomplete stream carries neither inline bytes nor parts (the bytes themselves are kept out of the failure message). */
function expectNoOutput(ssh: any, stream: 'stdout' | 'stderr') {
  const inline = ssh[stream];
  const inlineBytes = inline?.base64 === undefined ? 0 : Buffer.from(inline.base64, 'base64').length;
  expect({ [`${stream}_inline_bytes`]: inlineBytes, [`${stream}_parts`]: ssh[`${stream}_parts`] ?? 0 }).toEqual({
    [`${stream}_inline_bytes`]: 0,
    [`${stream}_parts`]: 0,
  });
}

async function fetchResult(id: string): Promise<any> {
  return f.stack.request('results.fetch', { invocation_id: id });
}

function sha256(data: Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** Reads a stream with `results.part` from seq 1 to the part marked last, checking every digest. */
async function readParts(id: string, stream: 'stdout' | 'stderr', expectedParts: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for (let seq = 1; seq <= expectedParts + 1; seq++) {
    const part = await f.stack.request('results.part', { invocation_id: id, stream, seq });
    expect(part.error ?? null, JSON.stringify(part)).toBeNull();
    expect(part).toMatchObject({ invocation_id: id, stream, seq });
    const data = Buffer.from(part.data.base64, 'base64');
    expect(part.part_digest).toBe(sha256(data));
    chunks.push(data);
    if (part.last === true) {
      const whole = Buffer.concat(chunks);
      expect(seq).toBe(expectedParts);
      expect(part.total_bytes).toBe(whole.length);
      expect(part.digest).toBe(sha256(whole));
      return whole;
    }
    expect(part.last).toBe(false);
  }
  throw new Error(`${stream} of ${id} had no last part within ${expectedParts} parts`);
}

describe('connection setup: provably never executed', () => {
  it('a host key other than the pinned one is SSH_HOST_KEY_REJECTED: no auth offered, no effect', async () => {
    const view = await f.run(command(f.impostor.port, 'exit 0'));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.SSH_HOST_KEY_REJECTED, Retry.after_correction);
    expect(view.evidence).toMatchObject({ dispatch_started: false, stage: Stage.ssh_host_key });
    expect(view.attempts).toHaveLength(1);
    expect(view.attempts[0]).toMatchObject({ stage: Stage.ssh_host_key, outcome: Outcome.not_attempted, code: Code.SSH_HOST_KEY_REJECTED });
    expect(f.impostor.connections).toBeGreaterThan(0);
    expect(f.impostor.authenticated).toBe(0);
    expect(f.impostor.channelOpens).toBe(0);
    expect(f.impostor.effects()).toBe(0);
  });

  it('a refused password is SSH_AUTH_FAILED, after_correction, tried once, no effect', async () => {
    const before = f.main.effects();
    const opens = f.main.channelOpens;
    const view = await f.run(onMain('exit 0', { credential: 'ssh-wrong' }));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.SSH_AUTH_FAILED, Retry.after_correction);
    expect(view.evidence).toMatchObject({ dispatch_started: false, stage: Stage.ssh_auth });
    expect(view.attempts).toHaveLength(1);
    expect(f.main.effects()).toBe(before);
    expect(f.main.channelOpens).toBe(opens);
  });

  it('a peer that does not speak SSH is SSH_HANDSHAKE_FAILED, backoff, and nothing is dispatched', async () => {
    const garbage = createServer((socket) => {
      // Reading on lets the server see the client's close, so `close()` below can finish.
      socket.resume();
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\nnot an ssh server\r\n');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', () => resolve()));
    try {
      const view = await f.run(command((garbage.address() as AddressInfo).port, 'exit 0'));
      expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.SSH_HANDSHAKE_FAILED, Retry.backoff);
      expect(view.evidence.dispatch_started).toBe(false);
      expect(view.attempts.every((a: any) => a.stage === 'ssh_handshake')).toBe(true);
    } finally {
      await new Promise((resolve) => garbage.close(resolve));
    }
  });

  it('a refused TCP connection is CONNECT_REFUSED, backoff, one row per try', async () => {
    const view = await f.run(command(f.closedPort, 'exit 0'));
    expectError(view, Phase.connection_setup, Outcome.not_attempted, Code.CONNECT_REFUSED, Retry.backoff);
    expect(view.evidence.dispatch_started).toBe(false);
    expect(view.attempts.map((a: any) => [a.connect_try, a.stage, a.outcome])).toEqual([
      [1, Stage.tcp_connect, Outcome.not_attempted],
      [2, Stage.tcp_connect, Outcome.not_attempted],
    ]);
  });
});

describe('remote execution: the command ran and said how', () => {
  it('exit-status 0 is committed with no error, its output stored and fetchable', async () => {
    const before = f.main.effects('stdout 1000');
    const view = await f.run(onMain('stdout 1000'));
    expectCommitted(view);
    expect(view.evidence).toMatchObject({
      dispatch_started: true,
      exec_accepted: true,
      exit_status: 0,
      stdout_complete: true,
      stderr_complete: true,
      credential: { id: 'ssh-key', injection: CredentialType.ssh_key },
    });
    expect(view.evidence.exit_signal ?? null).toBeNull();
    expect(f.main.effects('stdout 1000')).toBe(before + 1);
    const result = await fetchResult(view.invocation_id);
    expect(result).toMatchObject({
      invocation_id: view.invocation_id,
      outcome: Outcome.committed,
      complete: true,
      http: null,
      ssh: { exit_status: 0, exit_signal: null, stdout_bytes: 1000, stderr_bytes: 0, stdout_complete: true, stderr_complete: true },
    });
    expect(Buffer.from(result.ssh.stdout.base64, 'base64').equals(hostileOutputBytes(1000, 'stdout'))).toBe(true);
  });

  it('a password credential works the same: exit 0 committed', async () => {
    const view = await f.run(onMain('exit 0', { credential: 'ssh-password' }));
    expectCommitted(view);
    expect(view.evidence).toMatchObject({ exit_status: 0, exec_accepted: true, credential: { id: 'ssh-password', injection: CredentialType.ssh_password } });
  });

  it('stderr output is kept apart from stdout', async () => {
    const view = await f.run(onMain('stderr 700'));
    expectCommitted(view);
    const result = await fetchResult(view.invocation_id);
    expect(result.ssh).toMatchObject({ stdout_bytes: 0, stderr_bytes: 700, stderr_complete: true });
    expect(Buffer.from(result.ssh.stderr.base64, 'base64').equals(hostileOutputBytes(700, 'stderr'))).toBe(true);
  });

  it('a non-zero exit is committed REMOTE_EXIT_NONZERO: reconcile, backoff when the command is declared idempotent', async () => {
    const view = await f.run(onMain('exit 3'));
    expectError(view, Phase.remote_execution, Outcome.committed, Code.REMOTE_EXIT_NONZERO, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true, exit_status: 3, known_idempotent: false });
    const safe = await f.run(onMain(`exit 3${SAFE}`));
    expectError(safe, Phase.remote_execution, Outcome.committed, Code.REMOTE_EXIT_NONZERO, Retry.backoff);
    expect(safe.evidence).toMatchObject({ exit_status: 3, known_idempotent: true });
    const result = await fetchResult(view.invocation_id);
    expect(result).toMatchObject({ outcome: Outcome.committed, ssh: { exit_status: 3, exit_signal: null } });
  });

  it('an exit-signal is committed REMOTE_EXIT_NONZERO with the signal in the evidence', async () => {
    const view = await f.run(onMain('signal TERM'));
    expectError(view, Phase.remote_execution, Outcome.committed, Code.REMOTE_EXIT_NONZERO, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true, exit_signal: 'TERM' });
    expect(view.evidence.exit_status ?? null).toBeNull();
    const result = await fetchResult(view.invocation_id);
    expect(result.ssh).toMatchObject({ exit_status: null, exit_signal: 'TERM' });
  });

  it('output over output_bytes is REMOTE_OUTPUT_TRUNCATED, never retried, that stream incomplete and not returned', async () => {
    const size = OUTPUT_BYTES + 40_000;
    const view = await f.run(onMain(`stdout ${size}`));
    expectError(view, Phase.remote_execution, Outcome.committed, Code.REMOTE_OUTPUT_TRUNCATED, Retry.never);
    expect(view.evidence).toMatchObject({ exec_accepted: true, exit_status: 0, stdout_complete: false, stderr_complete: true });
    const result = await fetchResult(view.invocation_id);
    expect(result.ssh).toMatchObject({ exit_status: 0, stdout_complete: false, stderr_complete: true });
    // A partial output is never handed out as a result (CONTRACT section 5).
    expect(result.complete).toBe(false);
    expectNoOutput(result.ssh, 'stdout');
  });

  it('stdin reaches the command: echo-stdin returns exactly what was sent, text or base64', async () => {
    const text = `line one\nline two: ${n} \u00e9\n`;
    const view = await f.run(onMain('echo-stdin', { stdin: { text } }));
    expectCommitted(view);
    expect(view.evidence).toMatchObject({ exit_status: 0, known_idempotent: true });
    expect(f.main.execs.at(-1)).toMatchObject({ command: 'echo-stdin', accepted: true });
    expect(f.main.execs.at(-1)!.stdin.toString('utf8')).toBe(text);
    const result = await fetchResult(view.invocation_id);
    expect(Buffer.from(result.ssh.stdout.base64, 'base64').toString('utf8')).toBe(text);

    const bytes = Buffer.from([0, 1, 2, 250, 251, 252, 10, 13]);
    const binary = await f.run(onMain('echo-stdin', { stdin: { base64: bytes.toString('base64') } }));
    expectCommitted(binary);
    const binaryResult = await fetchResult(binary.invocation_id);
    expect(Buffer.from(binaryResult.ssh.stdout.base64, 'base64').equals(bytes)).toBe(true);
  });
});

describe('remote execution: refusals are the server saying no', () => {
  it('an exec request answered with failure is rejected SSH_EXEC_REJECTED, after_correction, no effect', async () => {
    const view = await f.run(onMain('refuse-exec'));
    expectError(view, Phase.remote_execution, Outcome.rejected, Code.SSH_EXEC_REJECTED, Retry.after_correction);
    expect(view.evidence).toMatchObject({ dispatch_started: true, stage: Stage.exec_request });
    expect(view.evidence.exec_accepted ?? false).toBe(false);
    expect(f.main.effects('refuse-exec')).toBe(0);
    expect(f.main.execs.filter((e) => e.command === 'refuse-exec').every((e) => !e.accepted)).toBe(true);
  });

  it('a refused session channel is rejected SSH_CHANNEL_OPEN_FAILED, backoff, after DISPATCH_STARTED', async () => {
    const before = f.main.effects();
    const opens = f.main.channelOpens;
    f.main.refuseChannels(true);
    try {
      const view = await f.run(onMain('exit 0'));
      expectError(view, Phase.remote_execution, Outcome.rejected, Code.SSH_CHANNEL_OPEN_FAILED, Retry.backoff);
      expect(view.evidence).toMatchObject({ dispatch_started: true, stage: Stage.ssh_channel_open });
      expect(view.evidence.exec_accepted ?? false).toBe(false);
    } finally {
      f.main.refuseChannels(false);
    }
    expect(f.main.channelOpens).toBeGreaterThan(opens);
    expect(f.main.effects()).toBe(before);
  });
});

describe('remote execution: the outcome is unknown once the exec may have run', () => {
  it('a channel closed with neither exit-status nor exit-signal is REMOTE_RESULT_INCOMPLETE: reconcile, backoff when idempotent', async () => {
    const view = await f.run(onMain('close-no-exit'));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true });
    expect(view.evidence.exit_status ?? null).toBeNull();
    const safe = await f.run(onMain(`close-no-exit${SAFE}`));
    expectError(safe, Phase.remote_execution, Outcome.unknown, Code.REMOTE_RESULT_INCOMPLETE, Retry.backoff);
  });

  it('the connection lost after the exec was accepted is REMOTE_OUTCOME_UNKNOWN, and the server counted the effect', async () => {
    const before = f.main.effects('accept-then-drop');
    const view = await f.run(onMain('accept-then-drop'));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true });
    expect(f.main.effects('accept-then-drop')).toBe(before + 1);
  });

  it('the connection lost before the exec reply is REMOTE_OUTCOME_UNKNOWN, never SSH_EXEC_REJECTED', async () => {
    const before = f.main.effects('drop-no-reply');
    const view = await f.run(onMain('drop-no-reply'));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expect(view.evidence.dispatch_started).toBe(true);
    expect(view.evidence.exec_accepted ?? false).toBe(false);
    // The server took the request on before it dropped: exactly the case that must not read as a refusal.
    expect(f.main.effects('drop-no-reply')).toBe(before + 1);
  });

  it("the broker's own timeout on a command that never exits is REMOTE_OUTCOME_UNKNOWN", async () => {
    const started = Date.now();
    const view = await f.run(onMain('hang'));
    expectError(view, Phase.remote_execution, Outcome.unknown, Code.REMOTE_OUTCOME_UNKNOWN, Retry.reconcile);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true });
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});

describe('remote execution: exit-status received, then the output stream breaks', () => {
  it.each(['exit-then-drop', 'stdout-then-break'])('%s is committed REMOTE_OUTPUT_INCOMPLETE, never', async (cmd) => {
    const view = await f.run(onMain(cmd));
    expectError(view, Phase.remote_execution, Outcome.committed, Code.REMOTE_OUTPUT_INCOMPLETE, Retry.never);
    expect(view.evidence).toMatchObject({ dispatch_started: true, exec_accepted: true, exit_status: 0 });
  });

  it('the broken stdout is marked incomplete and not handed out', async () => {
    const view = await f.run(onMain('stdout-then-break'));
    expect(view.error?.code).toBe(Code.REMOTE_OUTPUT_INCOMPLETE);
    expect(view.evidence.stdout_complete).toBe(false);
    const result = await fetchResult(view.invocation_id);
    expect(result.outcome).toBe(Outcome.committed);
    expect(result.ssh).toMatchObject({ exit_status: 0, stdout_complete: false });
    expect(result.complete).toBe(false);
    expectNoOutput(result.ssh, 'stdout');
  });
});

describe('large outputs are served in parts', () => {
  const size = 600_000;

  it(`an output over 256 KiB (limit ${BULK_OUTPUT_BYTES}) is committed and reassembled from results.part to the exact bytes`, async () => {
    const view = await f.run(onBulk(`stdout ${size}`));
    expectCommitted(view);
    expect(view.evidence).toMatchObject({ exit_status: 0, stdout_complete: true });
    const result = await fetchResult(view.invocation_id);
    expect(result).toMatchObject({ complete: true, ssh: { stdout_bytes: size, stdout_complete: true, stdout_parts: 3 } });
    expect(result.ssh.stdout === undefined, 'a stdout over 256 KiB is not inline').toBe(true);
    const whole = await readParts(view.invocation_id, 'stdout', 3);
    expect(whole.length).toBe(size);
    expect(whole.equals(hostileOutputBytes(size, 'stdout'))).toBe(true);
  });

  it('stderr over 256 KiB is served in parts on its own stream', async () => {
    const view = await f.run(onBulk('stderr 300000'));
    expectCommitted(view);
    const result = await fetchResult(view.invocation_id);
    expect(result.ssh).toMatchObject({ stderr_bytes: 300_000, stderr_parts: 2 });
    const whole = await readParts(view.invocation_id, 'stderr', 2);
    expect(whole.equals(hostileOutputBytes(300_000, 'stderr'))).toBe(true);
  });

  it('`postern fetch` prints the stdout, inline or followed through its parts', async () => {
    const small = await f.run(onMain('stdout 2000'));
    expectCommitted(small);
    const printed = await f.stack.cli(['fetch', small.invocation_id]);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toBe(hostileOutputBytes(2000, 'stdout').toString('latin1'));

    const big = await f.run(onBulk(`stdout ${size}`));
    expectCommitted(big);
    const printedBig = await f.stack.cli(['fetch', big.invocation_id]);
    expect(printedBig.code, printedBig.stderr).toBe(0);
    expect(printedBig.stdout.length).toBe(size);
    expect(printedBig.stdout === hostileOutputBytes(size, 'stdout').toString('latin1')).toBe(true);
  });

  it('`postern submit` runs an ssh.exec and prints a committed RecordView', async () => {
    const cmd = onMain('exit 0');
    const out = await f.stack.cli(['--json', 'submit', '-'], JSON.stringify(cmd));
    expect(out.code, out.stderr + out.stdout).toBe(0);
    const view = JSON.parse(out.stdout);
    expect(view).toMatchObject({ client_request_id: cmd.client_request_id, status: 'resolved', outcome: Outcome.committed, error: null });
  });
});

describe('the secrets', () => {
  it('the private key, the passwords and the vault passphrase appear in no event, KV value, object, log, read-model row, RecordView or result', async () => {
    const key = opensshKeySecrets(f.main.clientKey.privateKey);
    expect(key.lines.length).toBeGreaterThan(2);
    expect(key.privateBytes.length).toBe(64);
    const secrets: (string | Uint8Array)[] = [
      f.main.clientKey.privateKey,
      f.main.clientKey.privateKey.trim(),
      ...key.lines,
      key.privateBytes,
      key.privateBytes.subarray(0, 32),
      f.main.password,
      WRONG_PASSWORD,
      VAULT_PASSPHRASE,
    ];
    const places = await everythingStored(f.stack);
    expect(places.length).toBeGreaterThan(50);
    expect(leaks(places, secrets)).toEqual([]);
    // The scan can fail: what the echo-stdin runs stored (text and binary) is found by the same search.
    expect(leaks(places, ['line one\nline two']).length).toBeGreaterThan(0);
    expect(leaks(places, [Buffer.from([0, 1, 2, 250, 251, 252, 10, 13])]).length).toBeGreaterThan(0);
  });
});
