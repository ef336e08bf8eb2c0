import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot, runUp } from './commands/up.js';
import { UsageError } from './errors.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'postern-up-'));
  await mkdir(join(root, 'infra', 'scripts'), { recursive: true });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function until(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('up', () => {
  it('finds the repo root from its own location', () => {
    expect(existsSync(join(repoRoot(), 'apps', 'cli', 'package.json'))).toBe(true);
  });

  it("runs the stack launcher and exits with the launcher's status", async () => {
    await writeFile(join(root, 'infra', 'scripts', 'start.mjs'), 'process.exit(3);\n');
    await expect(runUp(root)).resolves.toBe(3);
  });

  it('forwards SIGTERM to the launcher so the stack can stop cleanly', async () => {
    const ready = join(root, 'ready');
    await writeFile(
      join(root, 'infra', 'scripts', 'start.mjs'),
      [
        "import { writeFileSync } from 'node:fs';",
        "process.on('SIGTERM', () => process.exit(7));",
        `writeFileSync(${JSON.stringify(ready)}, '');`,
        'setTimeout(() => process.exit(1), 10000);',
      ].join('\n'),
    );
    const listenersBefore = process.listenerCount('SIGTERM');
    const exit = runUp(root);
    await until(() => existsSync(ready), 5000);
    process.emit('SIGTERM', 'SIGTERM');
    await expect(exit).resolves.toBe(7);
    expect(process.listenerCount('SIGTERM')).toBe(listenersBefore);
  });

  it('says so when the launcher is missing', async () => {
    await expect(runUp(root)).rejects.toBeInstanceOf(UsageError);
  });
});
