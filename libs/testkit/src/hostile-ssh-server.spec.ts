import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ssh2 from 'ssh2';
import { hostileOutputBytes, startHostileSshServer, type HostileSshServer } from './hostile-ssh-server.js';
import { sshKeyPair } from './ssh-key-pair.js';

interface Run {
  err: string | null;
  stdout: Buffer;
  stderr: Buffer;
  exit: { code: number | null | undefined; signal?: string } | null;
  closed: boolean;
  clientClosed: boolean;
}

/** Connects with a plain ssh2 client, runs one command, and reports what came back. */
function runOnce(
  server: HostileSshServer,
  command: string,
  opts: { password?: string; privateKey?: string; stdin?: Buffer; pinned?: string } = {},
): Promise<Run & { hostKey: string | null; connectError: string | null }> {
  return new Promise((resolve) => {
    const client = new ssh2.Client();
    const out: Run & { hostKey: string | null; connectError: string | null } = {
      err: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), exit: null, closed: false, clientClosed: false,
      hostKey: null, connectError: null,
    };
    const timer = setTimeout(() => {
      client.destroy();
      resolve(out);
    }, 3000);
    const done = () => {
      clearTimeout(timer);
      client.end();
      resolve(out);
    };
    client.on('error', (e) => {
      out.connectError = (e as { level?: string }).level ?? e.message;
    });
    client.on('close', () => {
      out.clientClosed = true;
      // Give the exec callback, which ssh2 fails after 'close', a turn.
      setImmediate(done);
    });
    client.on('ready', () => {
      client.exec(command, (err, stream) => {
        if (err) {
          out.err = err.message;
          done();
          return;
        }
        stream.on('data', (c: Buffer) => (out.stdout = Buffer.concat([out.stdout, c])));
        stream.stderr.on('data', (c: Buffer) => (out.stderr = Buffer.concat([out.stderr, c])));
        stream.on('exit', (code: number | null, signal?: string) => (out.exit = { code, signal }));
        stream.on('close', () => {
          out.closed = true;
          done();
        });
        stream.end(opts.stdin);
      });
    });
    client.connect({
      host: server.host,
      port: server.port,
      username: server.username,
      ...(opts.privateKey !== undefined ? { privateKey: opts.privateKey } : { password: opts.password ?? server.password }),
      tryKeyboard: false,
      readyTimeout: 3000,
      hostVerifier: (key: Buffer) => {
        const fp = `SHA256:${sha256(key)}`;
        out.hostKey = fp;
        return opts.pinned === undefined || fp === opts.pinned;
      },
    });
  });
}

function sha256(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

describe('startHostileSshServer', () => {
  let server: HostileSshServer;
  beforeAll(async () => {
    server = await startHostileSshServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it('presents its default host key and counts an accepted exec as an effect', async () => {
    const r = await runOnce(server, 'exit 0');
    expect(r.hostKey).toBe(server.hostKeyFingerprint);
    expect(r.hostKey).not.toBe(server.otherHostKeyFingerprint);
    expect(r.exit).toEqual({ code: 0, signal: undefined });
    expect(r.closed).toBe(true);
    expect(server.effects('exit 0')).toBe(1);
  });

  it('exits non-zero and by signal', async () => {
    const a = await runOnce(server, 'exit 3');
    expect(a.exit?.code).toBe(3);
    const b = await runOnce(server, 'signal TERM');
    expect(b.exit?.code).toBeNull();
    expect(b.exit?.signal).toBe('SIGTERM');
  });

  it('closes the channel with no exit message', async () => {
    const r = await runOnce(server, 'close-no-exit');
    expect(r.closed).toBe(true);
    expect(r.exit).toBeNull();
  });

  it('refuses the exec request without counting an effect', async () => {
    const before = server.effects();
    const r = await runOnce(server, 'refuse-exec');
    expect(r.err).toBe('Unable to exec');
    expect(r.clientClosed).toBe(false);
    expect(server.effects()).toBe(before);
    expect(server.execs.at(-1)).toMatchObject({ command: 'refuse-exec', accepted: false });
  });

  it('drops the connection after an exec it counted, with no reply', async () => {
    const r = await runOnce(server, 'drop-no-reply');
    expect(r.err).toBe('Unable to exec');
    expect(r.clientClosed).toBe(true);
    expect(server.effects('drop-no-reply')).toBe(1);
  });

  it('accepts then drops the connection', async () => {
    const r = await runOnce(server, 'accept-then-drop');
    expect(r.err).toBeNull();
    expect(r.exit).toBeNull();
    expect(r.clientClosed).toBe(true);
    expect(server.effects('accept-then-drop')).toBe(1);
  });

  it('sends exit-status then drops before the channel close', async () => {
    const r = await runOnce(server, 'exit-then-drop');
    expect(r.exit?.code).toBe(0);
    expect(r.clientClosed).toBe(true);
  });

  it('refuses the session channel open while told to', async () => {
    server.refuseChannels(true);
    try {
      const opens = server.channelOpens;
      const r = await runOnce(server, 'exit 0');
      expect(r.err).toMatch(/Channel open failure/);
      expect(server.channelOpens).toBe(opens + 1);
    } finally {
      server.refuseChannels(false);
    }
  });

  it('sends big stdout and stderr, byte for byte', async () => {
    const a = await runOnce(server, 'stdout 300000');
    expect(a.stdout.equals(hostileOutputBytes(300000, 'stdout'))).toBe(true);
    const b = await runOnce(server, 'stderr 70000');
    expect(b.stderr.equals(hostileOutputBytes(70000, 'stderr'))).toBe(true);
    expect(b.stdout.length).toBe(0);
  });

  it('echoes stdin and records it', async () => {
    const r = await runOnce(server, 'echo-stdin', { stdin: Buffer.from('hello over ssh') });
    expect(r.stdout.toString()).toBe('hello over ssh');
    expect(server.execs.at(-1)?.stdin.toString()).toBe('hello over ssh');
  });

  it('authenticates by public key and refuses a wrong password', async () => {
    const ok = await runOnce(server, 'exit 0', { privateKey: server.clientKey.privateKey });
    expect(ok.exit?.code).toBe(0);
    const bad = await runOnce(server, 'exit 0', { password: 'wrong' });
    expect(bad.connectError).toBe('client-authentication');
    const stranger = sshKeyPair();
    const badKey = await runOnce(server, 'exit 0', { privateKey: stranger.private });
    expect(badKey.connectError).toBe('client-authentication');
  });

  it('presents the other host key when asked', async () => {
    const other = await startHostileSshServer({ hostKey: 'other' });
    try {
      const r = await runOnce(other, 'exit 0', { pinned: other.hostKeyFingerprint });
      expect(r.hostKey).toBe(other.otherHostKeyFingerprint);
      expect(r.connectError).not.toBeNull();
      expect(other.effects()).toBe(0);
      expect(other.authenticated).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('hangs without exiting', async () => {
    const r = await Promise.race([
      runOnce(server, 'hang').then(() => 'finished'),
      new Promise((resolve) => setTimeout(() => resolve('still running'), 500)),
    ]);
    expect(r).toBe('still running');
  }, 5000);
});
