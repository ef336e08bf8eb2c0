import { classify, Code, CredentialType, Outcome } from '@postern/contract';
import { hostileOutputBytes, startHostileSshServer, type HostileSshServer } from '@postern/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openSshConnection } from './connect.js';
import { execCommand } from './exec.js';
import type { SshConnection } from './ssh-connection.js';
import type { SshExecOptions, SshExecReport } from './types.js';

interface Collected {
  stdout: Buffer;
  stderr: Buffer;
  report: SshExecReport;
}

describe('execCommand against the hostile SSH server', () => {
  let server: HostileSshServer;
  const open: SshConnection[] = [];
  beforeAll(async () => {
    server = await startHostileSshServer();
  });
  afterEach(async () => {
    server.refuseChannels(false);
    for (const c of open.splice(0)) await c.close();
  });
  afterAll(async () => {
    await server.close();
  });

  async function connect(): Promise<SshConnection> {
    const r = await openSshConnection(
      { host: server.host, port: server.port },
      { connectTimeoutMs: 3000, hostKeys: [server.hostKeyFingerprint], username: server.username, auth: { kind: CredentialType.ssh_password, password: server.password } },
    );
    if (!r.ok) throw new Error(`set-up failed: ${r.failure} ${r.diagnostic}`);
    open.push(r.connection);
    return r.connection;
  }

  async function run(command: string, over: Partial<SshExecOptions> & { stdin?: Uint8Array } = {}, conn?: SshConnection): Promise<Collected> {
    const c = conn ?? (await connect());
    const chunks = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
    const report = await execCommand(
      c,
      { command, stdin: over.stdin },
      {
        outputBytes: 1024 * 1024,
        timeoutMs: 3000,
        onStdout: (chunk) => void chunks.stdout.push(Buffer.from(chunk)),
        onStderr: (chunk) => void chunks.stderr.push(Buffer.from(chunk)),
        ...over,
      },
    );
    return { stdout: Buffer.concat(chunks.stdout), stderr: Buffer.concat(chunks.stderr), report };
  }

  const clean = {
    channel_open_sent: true,
    channel_open_refused: false,
    exec_reply: 'success',
    connection_lost: false,
    channel_closed: true,
    exit_signal: null,
    eof_received: true,
    output_over_limit: false,
    output_broken: false,
    broker_timeout: false,
    aborted: false,
    sink_failed: false,
    ended_by: 'closed',
  } as const;

  it('exit 0: success reply, exit status, EOF and close, each recorded', async () => {
    const { report } = await run('exit 0');
    expect(report).toMatchObject({ ...clean, exit_status: 0, stdout_bytes: 0, stderr_bytes: 0 });
    expect(classify({ kind: 'ssh', ...report }).outcome).toBe(Outcome.committed);
    expect(server.effects('exit 0')).toBe(1);
  });

  it('exit 3: the status is reported as is', async () => {
    const { report } = await run('exit 3');
    expect(report).toMatchObject({ ...clean, exit_status: 3 });
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.REMOTE_EXIT_NONZERO);
  });

  it('signal TERM: exit_signal without the SIG prefix, no status', async () => {
    const { report } = await run('signal TERM');
    expect(report).toMatchObject({ ...clean, exit_status: null, exit_signal: 'TERM' });
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.REMOTE_EXIT_NONZERO);
  });

  it('close-no-exit: channel closed, neither status nor signal', async () => {
    const { report } = await run('close-no-exit');
    expect(report).toMatchObject({ exec_reply: 'success', channel_closed: true, exit_status: null, exit_signal: null, connection_lost: false, ended_by: 'closed' });
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.REMOTE_RESULT_INCOMPLETE);
  });

  it('exit-then-drop: status kept, output broken, no channel close, not a lost connection', async () => {
    const { report } = await run('exit-then-drop');
    expect(report).toMatchObject({
      exec_reply: 'success',
      exit_status: 0,
      connection_lost: false,
      channel_closed: false,
      eof_received: false,
      output_broken: true,
      ended_by: 'closed',
    });
    const c = classify({ kind: 'ssh', ...report });
    expect(c.outcome).toBe(Outcome.committed);
    expect(c.code).toBe(Code.REMOTE_OUTPUT_INCOMPLETE);
  });

  it('stdout-then-break: output before and after the exit counted, stream broken', async () => {
    const { report, stdout } = await run('stdout-then-break');
    expect(report).toMatchObject({ exit_status: 0, output_broken: true, connection_lost: false, channel_closed: false });
    expect(report.stdout_bytes).toBeGreaterThanOrEqual(4096);
    expect(stdout.length).toBe(report.stdout_passed);
    expect(stdout.subarray(0, 4096).equals(hostileOutputBytes(4096))).toBe(true);
  });

  it('accept-then-drop: success reply, then the connection lost before any exit', async () => {
    const { report } = await run('accept-then-drop');
    expect(report).toMatchObject({
      exec_reply: 'success',
      connection_lost: true,
      channel_closed: false,
      exit_status: null,
      exit_signal: null,
      output_broken: false,
      ended_by: 'connection_lost',
    });
    const c = classify({ kind: 'ssh', ...report });
    expect(c.outcome).toBe(Outcome.unknown);
    expect(c.code).toBe(Code.REMOTE_OUTCOME_UNKNOWN);
    expect(server.effects('accept-then-drop')).toBe(1);
  });

  it('refuse-exec: a failure reply over a live connection, no effect', async () => {
    const before = server.effects();
    const conn = await connect();
    const { report } = await run('refuse-exec', {}, conn);
    expect(report).toMatchObject({
      channel_open_sent: true,
      channel_open_refused: false,
      exec_reply: 'failure',
      connection_lost: false,
      exit_status: null,
      ended_by: 'exec_refused',
    });
    expect(conn.alive).toBe(true);
    expect(server.effects()).toBe(before);
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.SSH_EXEC_REJECTED);
  });

  it('drop-no-reply: ssh2 says "Unable to exec" as for a refusal, but this is a lost connection', async () => {
    const { report } = await run('drop-no-reply');
    expect(report).toMatchObject({ exec_reply: null, connection_lost: true, channel_open_refused: false, ended_by: 'connection_lost' });
    expect(report.diagnostic).toBe('Unable to exec');
    const c = classify({ kind: 'ssh', ...report });
    expect(c.outcome).toBe(Outcome.unknown);
    expect(server.effects('drop-no-reply')).toBe(1);
  });

  it('refuse-exec and drop-no-reply are told apart on the same server', async () => {
    const a = await run('refuse-exec');
    const b = await run('drop-no-reply');
    expect([a.report.exec_reply, a.report.connection_lost]).toEqual(['failure', false]);
    expect([b.report.exec_reply, b.report.connection_lost]).toEqual([null, true]);
  });

  it('refused session channel: channel_open_refused, the server\'s no, no effect', async () => {
    const before = server.effects();
    server.refuseChannels(true);
    const { report } = await run('exit 0');
    expect(report).toMatchObject({ channel_open_sent: true, channel_open_refused: true, exec_reply: null, connection_lost: false, ended_by: 'channel_open_refused' });
    expect(report.diagnostic).toMatch(/^channel_open_failure: \d+$/);
    expect(server.effects()).toBe(before);
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.SSH_CHANNEL_OPEN_FAILED);
  });

  it('hang: the broker timeout ends it, the connection is dropped', async () => {
    const conn = await connect();
    const t0 = Date.now();
    const { report } = await run('hang', { timeoutMs: 300 }, conn);
    const elapsed = Date.now() - t0;
    expect(report).toMatchObject({ exec_reply: 'success', broker_timeout: true, exit_status: null, channel_closed: false, ended_by: 'timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(2000);
    await conn.whenClosed();
    expect(conn.alive).toBe(false);
    expect(classify({ kind: 'ssh', ...report }).code).toBe(Code.REMOTE_OUTCOME_UNKNOWN);
  });

  it('caller abort while running ends with aborted, not a timeout', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { report } = await run('hang', { signal: controller.signal });
    expect(report).toMatchObject({ aborted: true, broker_timeout: false, ended_by: 'aborted' });
  });

  it('an already aborted signal sends nothing', async () => {
    const before = server.channelOpens;
    const { report } = await run('exit 0', { signal: AbortSignal.abort() });
    expect(report).toMatchObject({ aborted: true, channel_open_sent: false, ended_by: 'aborted' });
    expect(server.channelOpens).toBe(before);
  });

  it('stdout within the limit passes whole, byte for byte', async () => {
    const { report, stdout } = await run('stdout 200000');
    expect(report).toMatchObject({ ...clean, exit_status: 0, stdout_bytes: 200000, stdout_passed: 200000, stdout_over_limit: false });
    expect(stdout.equals(hostileOutputBytes(200000))).toBe(true);
  });

  it('stdout over the limit: only the limit passed, the rest counted, read on to exit', async () => {
    const { report, stdout } = await run('stdout 300000', { outputBytes: 1000 });
    expect(report).toMatchObject({
      exit_status: 0,
      channel_closed: true,
      stdout_bytes: 300000,
      stdout_passed: 1000,
      stdout_over_limit: true,
      stderr_over_limit: false,
      output_over_limit: true,
    });
    expect(stdout.equals(hostileOutputBytes(1000))).toBe(true);
    const c = classify({ kind: 'ssh', ...report });
    expect(c.code).toBe(Code.REMOTE_OUTPUT_TRUNCATED);
  });

  it('stderr over the limit is tracked apart from stdout', async () => {
    const { report, stderr, stdout } = await run('stderr 50000', { outputBytes: 4096 });
    expect(report).toMatchObject({ stderr_bytes: 50000, stderr_passed: 4096, stderr_over_limit: true, stdout_over_limit: false, output_over_limit: true });
    expect(stderr.equals(hostileOutputBytes(4096, 'stderr'))).toBe(true);
    expect(stdout.length).toBe(0);
  });

  it('exactly the limit is not over it', async () => {
    const { report } = await run('stdout 5000', { outputBytes: 5000 });
    expect(report).toMatchObject({ stdout_bytes: 5000, stdout_passed: 5000, stdout_over_limit: false, output_over_limit: false });
  });

  it('a zero limit passes nothing and still reads to exit', async () => {
    let calls = 0;
    const { report } = await run('stdout 10000', { outputBytes: 0, onStdout: () => void calls++ });
    expect(calls).toBe(0);
    expect(report).toMatchObject({ exit_status: 0, stdout_bytes: 10000, stdout_passed: 0, stdout_over_limit: true });
  });

  it('slow async sinks get every byte in order (the channel waits for them)', async () => {
    const got: Buffer[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const { report } = await run('stdout 150000', {
      onStdout: async (chunk) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await new Promise((r) => setTimeout(r, 1));
        got.push(Buffer.from(chunk));
        inFlight--;
      },
    });
    expect(maxInFlight).toBe(1);
    expect(report).toMatchObject({ exit_status: 0, stdout_passed: 150000, channel_closed: true });
    expect(Buffer.concat(got).equals(hostileOutputBytes(150000))).toBe(true);
  });

  it('a failing sink is reported; later bytes are counted, not passed', async () => {
    let calls = 0;
    const { report } = await run('stdout 100000', {
      onStdout: () => {
        calls++;
        throw new Error('store down');
      },
    });
    expect(calls).toBe(1);
    expect(report).toMatchObject({ sink_failed: true, exit_status: 0, stdout_bytes: 100000 });
    expect(report.diagnostic).toBe('sink_failed: Error');
  });

  it('stdin is delivered, then EOF', async () => {
    const input = new TextEncoder().encode('line one\nline two\n');
    const { report, stdout } = await run('echo-stdin', { stdin: input });
    expect(report).toMatchObject({ ...clean, exit_status: 0 });
    expect(stdout.toString()).toBe('line one\nline two\n');
    expect(server.execs.at(-1)?.stdin.toString()).toBe('line one\nline two\n');
  });

  it('large stdin is delivered whole', async () => {
    const input = hostileOutputBytes(200000, 'stderr');
    const { report, stdout } = await run('echo-stdin', { stdin: input });
    expect(report.exit_status).toBe(0);
    expect(stdout.equals(input)).toBe(true);
  });

  it('without stdin the command sees EOF at once', async () => {
    const { report, stdout } = await run('echo-stdin');
    expect(report).toMatchObject({ ...clean, exit_status: 0 });
    expect(stdout.length).toBe(0);
  });

  it('two execs on one connection each get their own channel and report', async () => {
    const conn = await connect();
    const a = await run('exit 0', {}, conn);
    const b = await run('exit 3', {}, conn);
    expect(a.report.exit_status).toBe(0);
    expect(b.report.exit_status).toBe(3);
    expect(a.report.connection_id).toBe(conn.id);
  });

  it('an exec on a closed connection sends nothing and says so', async () => {
    const conn = await connect();
    await conn.close();
    const before = server.channelOpens;
    const { report } = await run('exit 0', {}, conn);
    expect(report).toMatchObject({ channel_open_sent: false, connection_lost: true, exec_reply: null, diagnostic: 'connection_not_alive' });
    expect(server.channelOpens).toBe(before);
  });

  it('an unknown command exits 127 with stderr', async () => {
    const { report, stderr } = await run('no-such-behaviour');
    expect(report.exit_status).toBe(127);
    expect(stderr.toString()).toBe('unknown command\n');
  });
});
