import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

// Workspace packages resolve to their TypeScript sources (the `source` export
// condition), so tests never run against a stale build.
const shared = {
  resolve: { conditions: ['source'] },
  // Tests run on the server side of vite, which has its own condition list.
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  plugins: [swc.vite({ module: { type: 'es6' } })],
};

export default defineConfig({
  test: {
    projects: [
      {
        ...shared,
        test: {
          name: 'unit',
          include: ['{apps,libs}/*/src/**/*.spec.ts'],
          exclude: ['**/*.int.spec.ts', '**/*.fault.spec.ts', '**/node_modules/**', '**/dist/**'],
        },
      },
      {
        ...shared,
        test: {
          name: 'int',
          include: ['{apps,libs}/*/src/**/*.int.spec.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        ...shared,
        test: {
          name: 'fault',
          include: ['{apps,libs}/*/src/**/*.fault.spec.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        // The launcher's own scripts: plain node modules, no workspace transforms.
        test: {
          name: 'infra',
          include: ['infra/**/*.spec.mjs'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        ...shared,
        test: {
          name: 'e2e',
          include: ['e2e/**/*.spec.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
