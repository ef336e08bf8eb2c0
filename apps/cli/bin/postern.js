#!/usr/bin/env node
// A committed shim, so that `npx postern` resolves on a fresh clone before anything is built.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'main.js');
if (!existsSync(main)) {
  process.stderr.write('postern: the CLI is not built yet. Run `npm start` (or `npm run build`) in the repo root first.\n');
  process.exit(2);
}
await import(main);
