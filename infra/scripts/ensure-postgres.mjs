#!/usr/bin/env node
// PostgreSQL tests expect a server on 127.0.0.1:5432. Start the local cluster
// when we may (root, Debian's pg_ctlcluster); otherwise say what is missing.
// Never fatal: only the PostgreSQL tests need it.
import { existsSync, readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { runCommand } from './run-command.mjs';
import { tcpReachable } from './tcp-reachable.mjs';

const HOST = '127.0.0.1';
const PORT = 5432;
const CLUSTERS_DIR = '/etc/postgresql';

export async function ensurePostgres({ log = console.log } = {}) {
  if (await tcpReachable(HOST, PORT)) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const versions = existsSync(CLUSTERS_DIR) ? readdirSync(CLUSTERS_DIR) : [];
  if (!isRoot || versions.length === 0 || !existsSync('/usr/bin/pg_ctlcluster')) {
    log(`postern: PostgreSQL is not reachable on ${HOST}:${PORT}; the PostgreSQL tests need it (trust auth, user postgres)`);
    return false;
  }
  for (const version of versions) {
    log(`postern: starting PostgreSQL ${version}: pg_ctlcluster ${version} main start`);
    await runCommand('/usr/bin/pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start']);
  }
  for (let i = 0; i < 30; i += 1) {
    if (await tcpReachable(HOST, PORT)) return true;
    await sleep(500);
  }
  log(`postern: PostgreSQL still not reachable on ${HOST}:${PORT}; the PostgreSQL tests will fail`);
  return false;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await ensurePostgres();
}
