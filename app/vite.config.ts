/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url'
import { defineConfig, loadEnv, type Plugin } from 'vite'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

// The app talks to plinth on its own origin. In development the vite server
// forwards the API paths to the plinth named by VITE_PLINTH_URL.
const apiPaths = ['/auth/v1', '/rest/v1', '/storage/v1', '/functions/v1', '/realtime/v1', '/_/']

/**
 * The start-up (src/main.tsx: React, the client) and the app's code
 * (src/app/app.tsx) are chunks that the small entry (src/boot.ts) and then
 * main.tsx import; a browser would ask for each only once the one before it
 * had arrived and run. Modulepreload links for them and every chunk they
 * import start all of these downloads with the page's (issue 24: on a slow
 * phone connection, round trips and the entry's download before anything
 * else is even asked for).
 */
function preloadStartUp(): Plugin {
  const START_UP = ['/src/main.tsx', '/src/app/app.tsx']
  return {
    name: 'plinth:preload-start-up',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk')
        const byName = new Map(chunks.map((c) => [c.fileName, c]))
        const files = new Set<string>()
        const add = (file: string) => {
          const chunk = byName.get(file)
          if (!chunk || chunk.isEntry || files.has(file)) return
          files.add(file)
          chunk.imports.forEach(add)
        }
        for (const chunk of chunks) {
          if (chunk.moduleIds.some((id) => START_UP.some((m) => id.endsWith(m)))) add(chunk.fileName)
        }
        return [...files].map((file) => ({
          tag: 'link',
          attrs: { rel: 'modulepreload', crossorigin: true, href: `/${file}` },
          injectTo: 'head' as const,
        }))
      },
    },
  }
}

/**
 * The loading shell (index.html) paints with the page itself, before any
 * script (issue 44 item 5: at 50 KB/s the first screen used to wait ~5 s for
 * the scripts). A stylesheet in the head would hold that first paint back
 * until it arrived, sharing the slow connection with the scripts; moved
 * after #root (the `app-stylesheet` comment), it holds back only what
 * follows it, and the shell before it paints at once with its own inline
 * styles. boot.ts starts the app only once the stylesheet has loaded, so the
 * app never shows unstyled.
 */
function stylesheetAfterShell(): Plugin {
  const MARK = /<!--\s*app-stylesheet\b[^>]*-->/
  const SHEET = /[ \t]*<link rel="stylesheet"[^>]*>\n?/g
  return {
    name: 'plinth:stylesheet-after-shell',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        if (!MARK.test(html)) return html
        const [head, body] = [html.slice(0, html.indexOf('</head>')), html.slice(html.indexOf('</head>'))]
        const sheets = head.match(SHEET) ?? []
        if (sheets.length === 0) return html.replace(MARK, '')
        return head.replace(SHEET, '') + body.replace(MARK, sheets.map((s) => s.trim()).join('\n    '))
      },
    },
  }
}

export default defineConfig(({ mode }) => {
  const env = loadEnv(mode, process.cwd(), 'VITE_')
  const target = env.VITE_PLINTH_URL || 'http://localhost:8000'
  return {
    plugins: [react(), tailwindcss(), preloadStartUp(), stylesheetAfterShell()],
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
