import { mkdtemp, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyFileError } from './errors.js';
import { PolicyStore } from './policy-store.js';

let dir: string;
let file: string;
let clock: number;
const now = () => clock;

const policyText = (budget: number, ...matches: string[]) =>
  `targets:\n${matches.map((m) => `  - match: "${m}"\n`).join('')}dispatch: {budget: ${budget}}\n`;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'postern-store-'));
  file = join(dir, 'postern.yaml');
  clock = 1_000_000;
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('PolicyStore', () => {
  it('open fails with PolicyFileError when the first policy is not good', async () => {
    await writeFile(file, 'dispatch: {budget: 0}\n');
    await expect(PolicyStore.open(file)).rejects.toMatchObject({ name: 'PolicyFileError' });
    await expect(PolicyStore.open(join(dir, 'absent.yaml'))).rejects.toMatchObject({ name: 'PolicyFileError' });
  });

  it('reloads a changed file, but looks at most once per interval', async () => {
    await writeFile(file, policyText(1, 'http://127.0.0.1:*'));
    const reloads: number[] = [];
    const store = await PolicyStore.open(file, { now, checkIntervalMs: 1000, onReload: (_p, generation) => reloads.push(generation) });
    expect(store.current().dispatch.budget).toBe(1);
    expect(store.generation).toBe(1);

    await writeFile(file, policyText(22, 'http://127.0.0.1:*', 'http://localhost:*'));
    clock += 999;
    expect(store.current().dispatch.budget).toBe(1);
    clock += 1;
    expect(store.current().dispatch.budget).toBe(22);
    expect(store.current().targets).toHaveLength(2);
    expect(store.generation).toBe(2);
    expect(store.lastError).toBeNull();
    expect(reloads).toEqual([2]);
  });

  it('an unchanged file is not reloaded', async () => {
    await writeFile(file, policyText(1, 'http://127.0.0.1:*'));
    const store = await PolicyStore.open(file, { now });
    const first = store.current();
    clock += 5000;
    expect(store.refresh()).toBe(false);
    expect(store.current()).toBe(first);
    expect(store.generation).toBe(1);
  });

  it('keeps the last good policy on a broken edit and reports it once', async () => {
    await writeFile(file, policyText(3, 'http://127.0.0.1:8080'));
    const seen: PolicyFileError[] = [];
    const store = await PolicyStore.open(file, { now, onError: (e) => seen.push(e) });
    const good = store.current();

    // A wider but broken policy must not take effect in any part.
    await writeFile(file, `${policyText(3, 'http://127.0.0.1:*', 'https://*.example.com')}`);
    clock += 1000;
    expect(store.current()).toBe(good);
    expect(store.current().targets.map((t) => t.match)).toEqual(['http://127.0.0.1:8080']);
    expect(store.lastError?.errors).toEqual([{ path: 'targets[1].match', reason: expect.stringContaining('wildcard') }]);
    expect(store.lastError?.message).toContain(file);
    clock += 1000;
    store.current();
    expect(seen).toHaveLength(1);

    // A YAML syntax error, likewise.
    await writeFile(file, 'targets: [\n');
    expect(store.refresh()).toBe(false);
    expect(store.current()).toBe(good);
    expect(store.lastError?.errors[0]?.path).toBe('(file)');
    expect(seen).toHaveLength(2);

    // Fixed: the new policy applies and the error clears.
    await writeFile(file, policyText(4, 'http://127.0.0.1:9090'));
    expect(store.refresh()).toBe(true);
    expect(store.current().targets.map((t) => t.match)).toEqual(['http://127.0.0.1:9090']);
    expect(store.lastError).toBeNull();
    expect(store.generation).toBe(2);
  });

  it('a deleted file keeps the last good policy and says so', async () => {
    await writeFile(file, policyText(3, 'http://127.0.0.1:8080'));
    const store = await PolicyStore.open(file, { now });
    await unlink(file);
    expect(store.refresh()).toBe(false);
    expect(store.current().targets).toHaveLength(1);
    expect(store.lastError?.errors).toEqual([{ path: '(file)', reason: 'file not found' }]);
  });

  it('picks up a file replaced by rename, as editors save', async () => {
    await writeFile(file, policyText(3, 'http://127.0.0.1:8080'));
    const store = await PolicyStore.open(file, { now });
    const staged = join(dir, 'postern.yaml.new');
    await writeFile(staged, policyText(3, 'http://127.0.0.1:8081'));
    await rename(staged, file);
    expect(store.refresh()).toBe(true);
    expect(store.current().targets[0]?.match).toBe('http://127.0.0.1:8081');
  });

  it('sees a same-size edit that left the mtime unchanged', async () => {
    // As on a file system with one-second timestamps: both versions written
    // within the same second, same size, so stat alone cannot tell them apart.
    const second = Math.floor(Date.now() / 1000);
    await writeFile(file, policyText(3, 'http://127.0.0.1:8080'));
    await utimes(file, second, second);
    const before = await stat(file);
    const store = await PolicyStore.open(file, { now });
    await writeFile(file, policyText(3, 'http://127.0.0.1:8081'));
    await utimes(file, second, second);
    const after = await stat(file);
    expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
    expect(store.refresh()).toBe(true);
    expect(store.current().targets[0]?.match).toBe('http://127.0.0.1:8081');
  });

  it('a restored file clears the error even when its text is the last good one', async () => {
    const text = policyText(3, 'http://127.0.0.1:8080');
    await writeFile(file, text);
    const store = await PolicyStore.open(file, { now });
    await unlink(file);
    store.refresh();
    expect(store.lastError).not.toBeNull();
    await writeFile(file, text);
    store.refresh();
    expect(store.lastError).toBeNull();
    expect(store.current().targets[0]?.match).toBe('http://127.0.0.1:8080');
  });

  it('with the real clock, a change is seen once the interval has passed', async () => {
    await writeFile(file, policyText(1, 'http://127.0.0.1:*'));
    const store = await PolicyStore.open(file, { checkIntervalMs: 50 });
    await writeFile(file, policyText(7, 'http://127.0.0.1:*'));
    const deadline = Date.now() + 2000;
    let budget = store.current().dispatch.budget;
    for (let i = 0; i < 100 && budget !== 7 && Date.now() < deadline; i++) {
      await new Promise((r) => setTimeout(r, 20));
      budget = store.current().dispatch.budget;
    }
    expect(budget).toBe(7);
  });
});
