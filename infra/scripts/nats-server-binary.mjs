// Where a nats-server binary is, if there is one: NATS_SERVER_BIN, then PATH,
// then the usual package locations.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const WELL_KNOWN_DIRS = ['/usr/sbin', '/usr/local/bin', '/usr/bin'];

function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function findNatsServerBinary(env = process.env) {
  const explicit = env.NATS_SERVER_BIN?.trim();
  if (explicit) return isExecutable(explicit) ? explicit : null;
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...WELL_KNOWN_DIRS];
  for (const dir of dirs) {
    const candidate = join(dir, 'nats-server');
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}
