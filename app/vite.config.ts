/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url'
import { defineConfig, loadEnv } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The app talks to plinth on its own origin. In development the vite server
// forwards the API paths to the plinth named by VITE_PLINTH_URL.
const apiPaths = ['/auth/v1', '/rest/v1', '/storage/v1', '/functions/v1', '/realtime/v1', '/_/']

export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, process.cwd(), 'VITE_')
  const target = env.VITE_PLINTH_URL || 'http://localhost:8000'
  return {
    plugins: [react(), tailwindcss()],
    resolve: {
      alias: [
        { find: /^@\//, replacement: here('./src/') },
        { find: /^@plinth\/sdk$/, replacement: here('../sdk-ts/src/index.ts') },
        // sdk-ts/src imports the official client; resolve it from the app's own
        // node_modules so that the app builds without installing sdk-ts.
        { find: /^@supabase\/supabase-js$/, replacement: here('./node_modules/@supabase/supabase-js') },
      ],
    },
    server: {
      proxy: Object.fromEntries(
        apiPaths.map((p) => [p, { target, changeOrigin: true, ws: p === '/realtime/v1' }]),
      ),
    },
    build: {
      outDir: 'dist',
      sourcemap: false,
    },
    test: {
      environment: 'jsdom',
      globals: false,
      setupFiles: ['./src/testing/setup.ts'],
      include: ['src/**/*.test.{ts,tsx}'],
      css: false,
      restoreMocks: true,
    },
  }
})
