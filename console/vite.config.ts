/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url'
import { defineConfig, loadEnv } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The console is served by plinth at /_/console (PLINTH_CONSOLE=true) and
// talks only to /_/console/api on the same origin. In development the vite
// server forwards that path to the plinth named by VITE_PLINTH_URL.
export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, process.cwd(), 'VITE_')
  const target = env.VITE_PLINTH_URL || 'http://localhost:8000'
  return {
    base: '/_/console/',
    plugins: [react(), tailwindcss()],
    resolve: {
      alias: [{ find: /^@\//, replacement: here('./src/') }],
    },
    server: {
      proxy: { '/_/console/api': { target, changeOrigin: false } },
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
