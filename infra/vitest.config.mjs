// The infra scripts' own tests: plain node (no decorators, no workspace
// sources), so they need none of the workspace's transform settings.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    name: 'infra',
    include: ['infra/**/*.spec.mjs'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
