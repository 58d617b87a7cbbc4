import { configDefaults, defineConfig } from 'vitest/config'

// The compatibility suites: every file talks to one real `plinth serve`
// started by the global setup on a fresh database.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // tests/scale-out needs the nodes and nginx of scripts/scale-out
    // (vitest.scale-out.config.ts).
    exclude: [...configDefaults.exclude, 'tests/scale-out/**'],
    globalSetup: ['tests/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 90_000,
    // One server, shared: files run one after another so that counts and
    // realtime events of one file never meet another's.
    fileParallelism: false,
  },
})
