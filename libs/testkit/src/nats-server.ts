import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { NatsServerNotFoundError, NatsServerStartError } from './errors.js';
import { freePort } from './free-port.js';

export interface NatsServerOptions {
  /** Start with JetStream enabled (default true). */
  jetstream?: boolean;
  /** Extra command-line arguments passed to nats-server. */
  args?: string[];
}

export interface NatsServerHandle {
  url: string;
  port: number;
  storeDir: string;
  /** Kills the server and removes its store directory. */
  stop(): Promise<void>;
  /**
   * Kills the server and starts it again on the same port with the same
   * store, after `downForMs` (default 0) without a server.
   */
  restart(opts?: { downForMs?: number }): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 5_000;
const FALLBACK_PATHS = ['/usr/sbin/nats-server', '/usr/local/bin/nats-server'];

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Locates the nats-server binary: NATS_SERVER_BIN, then PATH, then well-known paths. */
export function findNatsServerBinary(fallbacks: readonly string[] = FALLBACK_PATHS): string {
  const fromEnv = process.env['NATS_SERVER_BIN'];
  if (fromEnv && isExecutable(fromEnv)) return fromEnv;
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, 'nats-server');
    if (isExecutable(candidate)) return candidate;
  }
  for (const candidate of fallbacks) {
    if (isExecutable(candidate)) return candidate;
  }
  throw new NatsServerNotFoundError([...fallbacks]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (await waitForExit(child, STOP_GRACE_MS)) return;
  child.kill('SIGKILL');
  await waitForExit(child, STOP_GRACE_MS);
}

/** Polls until a client connects and (when enabled) JetStream answers, within a bound. */
async function waitReady(url: string, jetstream: boolean, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new NatsServerStartError(`nats-server exited early (code ${child.exitCode}): ${log()}`);
    }
    try {
      const nc = await connect({ servers: url, timeout: 1_000, reconnect: false });
      try {
        if (jetstream) {
          const jsm = await jetstreamManager(nc, { timeout: 1_000 });
          await jsm.getAccountInfo();
        }
        return;
      } finally {
        await nc.close();
      }
    } catch (err) {
      lastError = err;
      await sleep(50);
    }
  }
  throw new NatsServerStartError(`nats-server at ${url} not ready after ${READY_TIMEOUT_MS} ms: ${log()}`, {
    cause: lastError,
  });
}

/**
 * Starts a private nats-server on a free loopback port with a temporary store,
 * so that tests never touch a shared server.
 */
export async function startNatsServer(opts: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const bin = findNatsServerBinary();
  const jetstream = opts.jetstream ?? true;
  const storeDir = await mkdtemp(join(tmpdir(), 'postern-nats-'));
  const port = await freePort();
  const url = `nats://127.0.0.1:${port}`;
  const args = ['-a', '127.0.0.1', '-p', String(port), ...(jetstream ? ['-js', '-sd', storeDir] : []), ...(opts.args ?? [])];

  let child: ChildProcess | undefined;
  let stopped = false;

  const launch = async (): Promise<void> => {
    let output = '';
    const proc = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    // Keep only the tail: enough to explain a failed start without unbounded growth.
    const collect = (chunk: Buffer): void => {
      output = (output + chunk.toString('utf8')).slice(-4_000);
    };
    proc.stdout?.on('data', collect);
    proc.stderr?.on('data', collect);
    proc.once('error', (err) => {
      output += ` spawn error: ${err.message}`;
    });
    child = proc;
    try {
      await waitReady(url, jetstream, proc, () => output.trim());
    } catch (err) {
      await kill(proc);
      throw err;
    }
  };

  try {
    await launch();
  } catch (err) {
    await rm(storeDir, { recursive: true, force: true });
    throw err;
  }

  return {
    url,
    port,
    storeDir,
    async stop() {
      if (stopped) return;
      stopped = true;
      if (child) await kill(child);
      await rm(storeDir, { recursive: true, force: true });
    },
    async restart(restartOpts: { downForMs?: number } = {}) {
      if (stopped) throw new NatsServerStartError('cannot restart a stopped nats-server');
      if (child) await kill(child);
      if (restartOpts.downForMs !== undefined && restartOpts.downForMs > 0) await sleep(restartOpts.downForMs);
      await launch();
    },
  };
}
