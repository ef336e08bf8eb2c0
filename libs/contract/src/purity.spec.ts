import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The contract library decides and does nothing else: no I/O, no clock, no
 * randomness, no framework or transport. This scan keeps it so.
 */
const root = fileURLToPath(new URL('.', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

const FORBIDDEN: [string, RegExp][] = [
  ['a node: import', /from\s+['"]node:|import\(\s*['"]node:|require\(\s*['"]node:/],
  ['a bare node builtin import', /from\s+['"](fs|path|crypto|net|http|https|child_process|os|url)['"]/],
  ['@nestjs', /['"]@nestjs\//],
  ['@nats-io', /['"]@nats-io\//],
  ['undici', /['"]undici['"/]/],
  ['ssh2', /['"]ssh2['"/]/],
  ['Date.now', /Date\.now\s*\(/],
  ['Math.random', /Math\.random\s*\(/],
  ['new Date()', /new\s+Date\s*\(\s*\)/],
  ['performance.now', /performance\.now\s*\(/],
  ['process', /\bprocess\./],
  ['Buffer', /\bBuffer\./],
  ['crypto.getRandomValues', /getRandomValues/],
];

describe('purity of libs/contract', () => {
  const files = sources(root);

  it('scans the sources', () => {
    expect(files.length).toBeGreaterThan(15);
  });

  for (const [what, pattern] of FORBIDDEN) {
    it(`no source uses ${what}`, () => {
      const offenders = files.filter((f) => pattern.test(readFileSync(f, 'utf8'))).map((f) => f.slice(root.length));
      expect(offenders).toEqual([]);
    });
  }

  it('the scan itself catches a forbidden line', () => {
    expect(FORBIDDEN.some(([, p]) => p.test("import { connect } from '@nats-io/transport-node';"))).toBe(true);
    expect(FORBIDDEN.some(([, p]) => p.test('const t = Date.now();'))).toBe(true);
    expect(FORBIDDEN.some(([, p]) => p.test('const d = new Date();'))).toBe(true);
  });

  it('index.ts has only named exports', () => {
    const index = readFileSync(join(root, 'index.ts'), 'utf8');
    expect(index).not.toMatch(/export\s+\*/);
  });
});
