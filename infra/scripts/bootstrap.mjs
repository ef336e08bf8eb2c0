#!/usr/bin/env node
// Makes a fresh clone runnable: dependencies, a nats-server binary, a build.
// Node built-ins only: this runs before node_modules exists.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BootstrapError } from './bootstrap-error.mjs';
import { findNatsServerBinary } from './nats-server-binary.mjs';
import { repoRoot } from './repo-root.mjs';
import { runCommand } from './run-command.mjs';

// Lives inside node_modules so that deleting node_modules also forgets it.
const LOCK_MARKER = join('node_modules', '.postern-lock-sha256');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function mtimeMs(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return null;
  }
}

function sha256File(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Why dependencies must be installed, or null when node_modules matches the lock file. */
export function dependencyStaleness(root = repoRoot) {
  const modules = join(root, 'node_modules');
  const lock = join(root, 'package-lock.json');
  if (!existsSync(modules)) return 'node_modules is missing';
  if (!existsSync(lock)) return null;
  const marker = join(root, LOCK_MARKER);
  // The recorded hash wins over timestamps: npm itself may touch the lock file last.
  if (existsSync(marker)) {
    return readFileSync(marker, 'utf8').trim() === sha256File(lock) ? null : 'package-lock.json changed';
  }
  const installed = mtimeMs(join(modules, '.package-lock.json')) ?? mtimeMs(modules);
  return installed !== null && installed < (mtimeMs(lock) ?? 0) ? 'node_modules is older than package-lock.json' : null;
}

function recordLockHash(root) {
  const lock = join(root, 'package-lock.json');
  if (existsSync(lock) && existsSync(join(root, 'node_modules'))) {
    writeFileSync(join(root, LOCK_MARKER), `${sha256File(lock)}\n`);
  }
}

export async function ensureDependencies({ root = repoRoot, log = console.log } = {}) {
  const reason = dependencyStaleness(root);
  if (reason) {
    const hasLock = existsSync(join(root, 'package-lock.json'));
    const args = hasLock ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
    log(`postern: installing dependencies (${reason}): npm ${args.join(' ')}`);
    const code = await runCommand(NPM, args, { cwd: root });
    if (code !== 0) throw new BootstrapError(`npm ${args[0]} failed with exit code ${code}; fix the error above and run again`);
  }
  recordLockHash(root);
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

const INSTALL_HINT = 'install nats-server: apt-get install nats-server, or set NATS_URL to a running NATS with JetStream';

/** Returns the nats-server path; installs it with apt-get when running as root. */
export async function ensureNatsServer({ env = process.env, log = console.log } = {}) {
  const found = findNatsServerBinary(env);
  if (found) return found;
  if (env.NATS_SERVER_BIN?.trim()) throw new BootstrapError(`NATS_SERVER_BIN=${env.NATS_SERVER_BIN} is not an executable file`);
  const aptGet = ['/usr/bin/apt-get', '/bin/apt-get'].find((p) => existsSync(p));
  if (!isRoot() || !aptGet) throw new BootstrapError(INSTALL_HINT);
  log('postern: nats-server not found, installing it: apt-get install -y nats-server');
  const aptEnv = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  let code = await runCommand(aptGet, ['install', '-y', 'nats-server'], { env: aptEnv });
  if (code !== 0) {
    // A fresh image often has no package lists yet.
    await runCommand(aptGet, ['update'], { env: aptEnv });
    code = await runCommand(aptGet, ['install', '-y', 'nats-server'], { env: aptEnv });
  }
  const installed = findNatsServerBinary(env);
  if (code !== 0 || !installed) throw new BootstrapError(INSTALL_HINT);
  return installed;
}

/** Incremental `tsc -b`; the compiler's own output explains a failure. */
export async function ensureBuild({ root = repoRoot, log = console.log } = {}) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) throw new BootstrapError('typescript is not installed; run npm ci');
  log('postern: building…');
  const started = Date.now();
  const code = await runCommand(process.execPath, [tsc, '-b', 'tsconfig.build.json'], { cwd: root });
  if (code !== 0) throw new BootstrapError(`build failed (tsc exit code ${code}); see the compiler output above`);
  log(`postern: build done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * All three steps. `natsServer: 'optional'` skips the install when NATS_URL
 * points elsewhere (the launcher needs no local binary then).
 */
export async function bootstrap({ root = repoRoot, env = process.env, log = console.log, natsServer = 'required', build = true } = {}) {
  await ensureDependencies({ root, log });
  let natsServerBin = findNatsServerBinary(env);
  if (!natsServerBin && natsServer === 'required') natsServerBin = await ensureNatsServer({ env, log });
  if (build) await ensureBuild({ root, log });
  return { natsServerBin };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    await bootstrap();
  } catch (err) {
    console.error(`postern: ${err instanceof Error ? err.message : err}`);
    process.exit(1);
  }
}
