// The architecture as a test: each package reaches others only through their
// one door (`@postern/<name>`), declares what it uses, libraries never reach
// into apps, and the contract depends on nothing of ours.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './scripts/repo-root.mjs';

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function packages() {
  return ['libs', 'apps'].flatMap((group) =>
    readdirSync(join(repoRoot, group))
      .map((name) => join(repoRoot, group, name))
      .filter((dir) => existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'src')))
      .map((dir) => ({ dir, group, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) })),
  );
}

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return entry.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]);
}

const all = packages();
const appNames = new Set(all.filter((p) => p.group === 'apps').map((p) => p.manifest.name));
const manifests = new Map(all.map((p) => [p.manifest.name, p.manifest]));

/** `@postern/x/sub` is a door only if package x declares `./sub` in its exports. */
function declaredSubpath(ownName, spec) {
  const exports = manifests.get(ownName)?.exports ?? {};
  return Object.hasOwn(exports, `.${spec.slice(ownName.length)}`);
}

describe('workspace boundaries', () => {
  it('finds the packages', () => {
    expect(all.map((p) => p.manifest.name)).toEqual(expect.arrayContaining(['@postern/contract', '@postern/journal', '@postern/intake']));
  });

  for (const pkg of all) {
    const name = pkg.manifest.name;
    const files = sourceFiles(join(pkg.dir, 'src'));
    const declared = new Set([
      ...Object.keys(pkg.manifest.dependencies ?? {}),
      ...Object.keys(pkg.manifest.devDependencies ?? {}),
    ]);

    it(`${name} carries an Nx type tag`, () => {
      expect(pkg.manifest.nx?.tags?.some((tag) => tag.startsWith('type:'))).toBe(true);
    });

    it(`${name} imports other packages only through their door, and only those it declares`, () => {
      const defects = [];
      for (const file of files) {
        for (const spec of importsOf(file)) {
          const where = relative(repoRoot, file);
          if (spec.startsWith('.')) {
            // A relative import that leaves the package is a deep import in disguise.
            const target = join(file, '..', spec);
            if (!target.startsWith(join(pkg.dir, 'src'))) defects.push(`${where}: ${spec} leaves the package`);
            continue;
          }
          if (spec.startsWith('node:')) continue;
          const ownName = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
          if (ownName.startsWith('@postern/') && spec !== ownName && !declaredSubpath(ownName, spec)) defects.push(`${where}: deep import ${spec}`);
          // Test helpers are not built: only tests may use them.
          if (spec.endsWith('/testing') && !isSpec(file)) defects.push(`${where}: ${spec} outside a test`);
          if (ownName.startsWith('@postern/') && pkg.group === 'libs' && appNames.has(ownName)) {
            defects.push(`${where}: a library imports the app ${ownName}`);
          }
          if (!declared.has(ownName) && !(isSpec(file) && isRootDevTool(ownName))) defects.push(`${where}: ${ownName} is not declared`);
        }
      }
      expect(defects).toEqual([]);
    });
  }

  it('the contract depends on nothing but itself', () => {
    const contract = all.find((p) => p.manifest.name === '@postern/contract');
    expect(Object.keys(contract.manifest.dependencies ?? {})).toEqual([]);
    const outside = sourceFiles(join(contract.dir, 'src'))
      .filter((file) => !file.endsWith('.spec.ts'))
      .flatMap((file) => importsOf(file).filter((spec) => !spec.startsWith('.')).map((spec) => `${relative(repoRoot, file)}: ${spec}`));
    expect(outside).toEqual([]);
  });
});

const isSpec = (file) => /\.spec\.ts$|\.fixture\.ts$|-test-[^/]*\.ts$|\/fixtures\//.test(file);

// Test tooling lives at the root; spec files may use it without each package declaring it.
function isRootDevTool(name) {
  return ['vitest', 'fast-check', 'pg', 'better-sqlite3', '@nats-io/transport-node', '@nats-io/jetstream', '@nats-io/kv', '@nats-io/obj'].includes(name);
}
