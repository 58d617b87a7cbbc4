import { defineConfig } from 'vitest/config'

// The scale-out suite: supabase-js against two plinth nodes and nginx that
// scripts/scale-out starts and names in the environment (NODE_A_URL,
// NODE_B_URL, NGINX_URL, NGINX_REPLICAS_URL, ANON_KEY, SERVICE_ROLE_KEY,
// SITE_URL). Not part of the default run (vitest.config.ts excludes it).
export default defineConfig({
  test: {
    include: ['tests/scale-out/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Request counts read from the nodes' /metrics must not meet another
    // file's requests.
    fileParallelism: false,
  },
})
