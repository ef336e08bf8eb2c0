import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

/** The repo root, from this file's place in `apps/cli/{src,dist}/commands/`. */
export function repoRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
}

const FORWARDED = ['SIGINT', 'SIGTERM'] as const;

/**
 * `postern up`: runs the stack launcher in the foreground with this terminal,
 * and passes Ctrl-C and SIGTERM on so the stack stops cleanly. Its exit status
 * is the launcher's.
 */
export async function runUp(root: string = repoRoot()): Promise<number> {
  const script = join(root, 'infra', 'scripts', 'start.mjs');
  if (!existsSync(script)) throw new UsageError(`cannot find the stack launcher in this checkout (infra/scripts/start.mjs)`);
  const child = spawn(process.execPath, [script], { cwd: root, stdio: 'inherit' });
  const forward = (signal: NodeJS.Signals) => (): void => {
    child.kill(signal);
  };
  const handlers = FORWARDED.map((signal) => [signal, forward(signal)] as const);
  for (const [signal, handler] of handlers) process.on(signal, handler);
  try {
    return await new Promise<number>((resolveExit, reject) => {
      child.once('error', (err) => reject(new UsageError(`cannot start the stack: ${err.message}`, { cause: err })));
      child.once('exit', (code, signal) => {
        // Stopped by a signal we forwarded: that is how `up` is meant to end.
        resolveExit(code ?? (signal !== null ? 0 : 1));
      });
    });
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }
}
