import { run } from './cli.js';
import { promptHidden } from './hidden-line.js';
import { readAll } from './stdin.js';

// Setting exitCode rather than calling exit() lets a large stdout write drain first.
process.exitCode = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  readStdin: () => readAll(process.stdin),
  promptHidden: (prompt) => promptHidden(process.stdin, process.stderr, prompt),
  stdinIsTTY: process.stdin.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
});
