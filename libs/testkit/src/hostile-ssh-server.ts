import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import ssh2 from 'ssh2';
import type { AuthContext, Connection, ServerChannel } from 'ssh2';
import { sshKeyPair } from './ssh-key-pair.js';

/** A test user. Without `publicKey` or `password`, that method is refused for them. */
export interface HostileSshUser {
  name: string;
  password?: string;
  /** OpenSSH public key line (`ssh-ed25519 AAAA...`). */
  publicKey?: string;
}

export interface HostileSshServerOptions {
  /** Which host key the server presents (default `default`). */
  hostKey?: 'default' | 'other';
  /** Default: one user `deploy` with `password` and `clientKey.publicKey`. */
  users?: HostileSshUser[];
}

/** One exec request the server saw. */
export interface HostileSshExec {
  command: string;
  /** 1-based number of the accepted TCP connection it came on. */
  connection: number;
  /** The request was accepted (an effect), as opposed to refused. */
  accepted: boolean;
  /** Bytes of stdin the server read on this channel. */
  stdin: Buffer;
}

export interface HostileSshServer {
  readonly port: number;
  readonly host: string;
  /** `SHA256:...` of the key presented under the `default` option. */
  readonly hostKeyFingerprint: string;
  /** `SHA256:...` of the other key (presented under `hostKey: 'other'`). */
  readonly otherHostKeyFingerprint: string;
  /** A client key pair accepted for the default user (test-only, generated at start). */
  readonly clientKey: { privateKey: string; publicKey: string };
  /** The default user's name and password. */
  readonly username: string;
  readonly password: string;
  /** Exec requests seen, oldest first. */
  readonly execs: readonly HostileSshExec[];
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Authentications that succeeded so far. */
  readonly authenticated: number;
  /** Session channel opens the server saw (accepted or refused). */
  readonly channelOpens: number;
  /** Exec requests accepted (the "effects"), for one command or all. */
  effects(command?: string): number;
  /** While on, every session channel open is refused (CHANNEL_OPEN_FAILURE). */
  refuseChannels(on: boolean): void;
  close(): Promise<void>;
}

const DEFAULT_USER = 'deploy';
const DEFAULT_PASSWORD = 'test-only-password';
/** Bytes written between exit-status and the break in `stdout-then-break`. */
const BREAK_TAIL_BYTES = 4096;

/** Deterministic output bytes, so a test can check what it received. */
export function hostileOutputBytes(length: number, stream: 'stdout' | 'stderr' = 'stdout'): Buffer {
  const out = Buffer.alloc(length);
  const base = stream === 'stdout' ? 0x61 : 0x41;
  for (let i = 0; i < length; i++) out[i] = base + (i % 26);
  return out;
}

function fingerprintOf(publicBlob: Buffer): string {
  return `SHA256:${createHash('sha256').update(publicBlob).digest('base64').replace(/=+$/, '')}`;
}

function parsedKey(key: string): ssh2.ParsedKey {
  const parsed = ssh2.utils.parseKey(key);
  if (parsed instanceof Error) throw parsed;
  return parsed;
}

function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Writes `data` honouring the channel's flow control. */
async function writeAll(write: (chunk: Buffer) => boolean, onDrain: (fn: () => void) => void, data: Buffer): Promise<void> {
  const step = 32 * 1024;
  for (let off = 0; off < data.length; off += step) {
    if (!write(data.subarray(off, off + step))) await new Promise<void>((resolve) => onDrain(resolve));
  }
}

/**
 * An SSH server on 127.0.0.1 that misbehaves on request. The command string
 * chooses the behaviour: `exit <n>`, `signal <NAME>`, `close-no-exit`,
 * `exit-then-drop`, `accept-then-drop`, `drop-no-reply`, `refuse-exec`,
 * `hang`, `stdout <n>`, `stderr <n>`, `echo-stdin`, `stdout-then-break`.
 * Keys are generated at start; they are test-only and never leave the process.
 */
export async function startHostileSshServer(opts: HostileSshServerOptions = {}): Promise<HostileSshServer> {
  const defaultHost = sshKeyPair();
  const otherHost = sshKeyPair();
  const client = sshKeyPair();
  const users = opts.users ?? [{ name: DEFAULT_USER, password: DEFAULT_PASSWORD, publicKey: client.public }];
  const presented = opts.hostKey === 'other' ? otherHost : defaultHost;

  const execs: HostileSshExec[] = [];
  const effectCounts = new Map<string, number>();
  const sockets = new Set<Socket>();
  const socketNumbers = new WeakMap<Socket, number>();
  let connections = 0;
  let authenticated = 0;
  let channelOpens = 0;
  let refusing = false;

  const drop = (socket: Socket) => {
    // FIN after what is queued has been flushed, with no SSH DISCONNECT: a
    // lost connection as the client sees it.
    socket.end();
    setTimeout(() => socket.destroy(), 200).unref();
  };

  const authenticate = (ctx: AuthContext) => {
    const user = users.find((u) => u.name === ctx.username);
    if (user === undefined) return ctx.reject(['password', 'publickey']);
    if (ctx.method === 'password') {
      if (user.password !== undefined && sameBytes(Buffer.from(ctx.password), Buffer.from(user.password))) return accept();
      return ctx.reject(['password', 'publickey']);
    }
    if (ctx.method === 'publickey') {
      if (user.publicKey === undefined) return ctx.reject(['password', 'publickey']);
      const allowed = parsedKey(user.publicKey);
      if (ctx.key.algo !== allowed.type || !sameBytes(ctx.key.data, allowed.getPublicSSH())) return ctx.reject(['password', 'publickey']);
      // Without a signature the client only asks whether the key would do.
      if (ctx.signature === undefined) return ctx.accept();
      if (allowed.verify(ctx.blob as Buffer, ctx.signature, ctx.hashAlgo) !== true) return ctx.reject(['password', 'publickey']);
      return accept();
    }
    return ctx.reject(['password', 'publickey']);
    function accept() {
      authenticated += 1;
      ctx.accept();
    }
  };

  const run = async (command: string, channel: ServerChannel, socket: Socket, record: HostileSshExec): Promise<void> => {
    const [verb, arg] = command.trim().split(/\s+/, 2);
    const stdout = (data: Buffer) => writeAll((c) => channel.write(c), (fn) => channel.once('drain', fn), data);
    const stderr = (data: Buffer) => writeAll((c) => channel.stderr.write(c), (fn) => channel.stderr.once('drain', fn), data);
    channel.on('data', (chunk: Buffer) => {
      record.stdin = Buffer.concat([record.stdin, chunk]);
    });
    switch (verb) {
      case 'exit':
        channel.exit(Number(arg ?? '0'));
        channel.end();
        return;
      case 'signal':
        channel.exit(arg ?? 'TERM', false, 'killed by the hostile server');
        channel.end();
        return;
      case 'close-no-exit':
        channel.close();
        return;
      case 'exit-then-drop':
        channel.exit(0);
        drop(socket);
        return;
      case 'accept-then-drop':
        drop(socket);
        return;
      case 'hang':
        return;
      case 'stdout':
        await stdout(hostileOutputBytes(Number(arg ?? '0'), 'stdout'));
        channel.exit(0);
        channel.end();
        return;
      case 'stderr':
        await stderr(hostileOutputBytes(Number(arg ?? '0'), 'stderr'));
        channel.exit(0);
        channel.end();
        return;
      case 'echo-stdin':
        channel.on('data', (chunk: Buffer) => channel.write(chunk));
        channel.once('end', () => {
          channel.exit(0);
          channel.end();
        });
        return;
      case 'stdout-then-break':
        await stdout(hostileOutputBytes(BREAK_TAIL_BYTES, 'stdout'));
        channel.exit(0);
        channel.write(hostileOutputBytes(BREAK_TAIL_BYTES, 'stdout'));
        drop(socket);
        return;
      default:
        channel.stderr.write(`unknown command\n`);
        channel.exit(127);
        channel.end();
    }
  };

  const sshServer = new ssh2.Server({ hostKeys: [presented.private] }, (conn: Connection) => {
    const socket = (conn as unknown as { _sock: Socket })._sock;
    const connection = socketNumbers.get(socket) ?? 0;
    conn.on('error', () => undefined);
    conn.on('authentication', authenticate);
    conn.on('ready', () => {
      conn.on('session', (acceptSession, rejectSession) => {
        channelOpens += 1;
        if (refusing) {
          rejectSession();
          return;
        }
        const session = acceptSession();
        session.on('exec', (acceptExec, rejectExec, info) => {
          const command = info.command;
          const record: HostileSshExec = { command, connection, accepted: false, stdin: Buffer.alloc(0) };
          execs.push(record);
          if (command.trim() === 'refuse-exec') {
            rejectExec();
            return;
          }
          // The effect happens when the server takes the request on, before it answers.
          record.accepted = true;
          effectCounts.set(command, (effectCounts.get(command) ?? 0) + 1);
          if (command.trim() === 'drop-no-reply') {
            drop(socket);
            return;
          }
          const channel = acceptExec();
          if (channel === undefined) return;
          channel.on('error', () => undefined);
          void run(command, channel, socket, record).catch(() => socket.destroy());
        });
      });
    });
  });
  sshServer.on('error', () => undefined);

  const tcp = createServer((socket) => {
    connections += 1;
    socketNumbers.set(socket, connections);
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    sshServer.injectSocket(socket);
  });
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen({ port: 0, host: '127.0.0.1' }, () => {
      tcp.off('error', reject);
      resolve();
    });
  });
  const address = tcp.address();
  if (address === null || typeof address === 'string') throw new Error('could not read the port of the SSH listener');

  return {
    port: address.port,
    host: '127.0.0.1',
    hostKeyFingerprint: fingerprintOf(parsedKey(defaultHost.public).getPublicSSH()),
    otherHostKeyFingerprint: fingerprintOf(parsedKey(otherHost.public).getPublicSSH()),
    clientKey: { privateKey: client.private, publicKey: client.public },
    username: DEFAULT_USER,
    password: DEFAULT_PASSWORD,
    execs,
    get connections() {
      return connections;
    },
    get authenticated() {
      return authenticated;
    },
    get channelOpens() {
      return channelOpens;
    },
    effects(command?: string): number {
      if (command !== undefined) return effectCounts.get(command) ?? 0;
      let total = 0;
      for (const n of effectCounts.values()) total += n;
      return total;
    },
    refuseChannels(on: boolean): void {
      refusing = on;
    },
    async close(): Promise<void> {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
