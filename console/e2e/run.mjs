// Browser walks of the console against a real plinth with the demo data, at
// 1280×800 and 375×812. Needs chromium (/usr/bin/chromium, or CHROMIUM_PATH)
// and a built console (npm run build). Every `walks/*.mjs` exports its
// `walks`; E2E_ONLY=<text> runs only the walks whose name contains it;
// E2E_SCREENSHOTS_DIR=<dir> saves each section's screenshot there.
//
// A walk fails on an uncaught page error or a console error. The browser
// logs every failed request as a console error; the ones a walk expects
// (a wrong password's 401, a SQL error's 400, the session check before
// signing in) are named in `expectedFailures` and not counted.
import { readdirSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { startPlinth } from './plinth.mjs'
import { BASE, TIMEOUT } from './lib.mjs'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const VIEWPORTS = [
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
  { name: 'phone', viewport: { width: 375, height: 812 }, isMobile: true, hasTouch: true },
]
const only = process.env.E2E_ONLY

/** Failed requests every walk may see: the session check of a browser not yet signed in. */
const ALWAYS_EXPECTED = [{ status: 401, path: `${BASE}/api/session` }]

const files = readdirSync(new URL('./walks/', import.meta.url)).filter((f) => f.endsWith('.mjs')).sort()
const walks = []
for (const file of files) walks.push(...(await import(`./walks/${file}`)).walks)

function watch(page, walk) {
  const problems = []
  const expected = [...ALWAYS_EXPECTED, ...(walk.expectedFailures ?? [])]
  // Chromium's console message for a failed request names the status, and its location the URL.
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const text = message.text()
    const where = message.location()?.url ?? ''
    const status = Number(/status of (\d{3})/.exec(text)?.[1])
    if (status && where) {
      const path = new URL(where).pathname
      if (expected.some((e) => e.status === status && path === e.path)) return
    }
    problems.push(`console error: ${text}${where ? ` (${where})` : ''}`)
  })
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
  return problems
}

async function main() {
  const plinth = await startPlinth()
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  })
  let passed = 0
  let failed = 0
  try {
    for (const vp of VIEWPORTS) {
      for (const walk of walks) {
        if (only && !walk.name.includes(only)) continue
        const context = await browser.newContext({
          viewport: vp.viewport,
          isMobile: vp.isMobile,
          hasTouch: vp.hasTouch,
          locale: 'en-US',
          acceptDownloads: true,
        })
        await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: plinth.url })
        context.setDefaultTimeout(TIMEOUT)
        const page = await context.newPage()
        const problems = watch(page, walk)
        const started = Date.now()
        try {
          await walk.run(page, { url: plinth.url, viewport: vp.name, operator: plinth.operator })
          // Late answers (polls, streams) may still log: give them a moment.
          await page.waitForTimeout(300)
          if (problems.length) throw new Error(`${problems.length} problem(s):\n${problems.join('\n')}`)
          passed++
          console.log(`  ✓ [${vp.name}] ${walk.name} (${Date.now() - started} ms)`)
        } catch (error) {
          failed++
          console.log(`  ✗ [${vp.name}] ${walk.name}\n      ${String(error?.message ?? error).split('\n').slice(0, 8).join('\n      ')}`)
          if (problems.length && !String(error?.message).includes('problem(s)')) console.log(`      also: ${problems.slice(0, 4).join('\n      ')}`)
          if (process.env.E2E_FAILURES_DIR)
            await page.screenshot({ path: `${process.env.E2E_FAILURES_DIR}/${vp.name}-${walk.name.replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => {})
        } finally {
          await context.close()
        }
      }
    }
  } finally {
    await browser.close()
    await plinth.stop()
  }
  console.log(`\n${passed} passed, ${failed} failed`)
  process.exitCode = failed ? 1 : 0
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
