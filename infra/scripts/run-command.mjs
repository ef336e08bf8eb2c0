// Runs a command with inherited stdio and resolves with its exit code; a
// command that cannot start at all is an error, not a code.
import { spawn } from 'node:child_process';

export function runCommand(command, args, options = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', ...options });
    child.once('error', reject);
    child.once('exit', (code, signal) => resolvePromise(code ?? (signal ? 128 : 1)));
  });
}
