// Browser end-to-end walks against a real plinth with the demo data, on a
// phone-sized and a desktop viewport. Needs Debian's chromium (apt-get install
// -y chromium) and a built app (npm run build). Every `walks/*.mjs` exports its
// `walks`; E2E_ONLY=<text> runs only the walks whose name contains it.
import { readdirSync } from 'node:fs'
import pg from 'pg'
import { chromium } from 'playwright-core'
import { startPlinth } from './plinth.mjs'
import { axeBlocking, axeChecks, axeLog, axeSummary, expect, TIMEOUT } from './lib.mjs'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const VIEWPORTS = [
  { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
  { name: 'desktop', viewport: { width: 1280, height: 800 } },
]
const only = process.env.E2E_ONLY

const files = readdirSync(new URL('./walks/', import.meta.url)).filter((f) => f.endsWith('.mjs')).sort()
const walks = []
for (const file of files) walks.push(...(await import(`./walks/${file}`)).walks)

async function main() {
  const plinth = await startPlinth()
  // ctx.sql(text, params): a statement on the walks' database as its owner
  // (for data no screen makes, e.g. 200 templates to page through).
  const db = new pg.Pool({ connectionString: plinth.databaseUrl, max: 2 })
  const sql = async (text, params = []) => (await db.query(text, params)).rows
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
        const context = await browser.newContext({ viewport: vp.viewport, isMobile: vp.isMobile, hasTouch: vp.hasTouch, locale: 'en-US' })
        context.setDefaultTimeout(TIMEOUT)
        const page = await context.newPage()
        const errors = []
        page.on('pageerror', (e) => errors.push(e.message))
        const started = Date.now()
        const axeFrom = axeLog.length
        try {
          await walk.run(page, { url: plinth.url, viewport: vp.name, newsletter: plinth.newsletter, sql })
          expect(errors.length === 0, `page errors: ${errors.join('; ')}`)
          // A serious or critical accessibility violation on a screen this walk checked fails it.
          const blocking = axeBlocking(new Set(axeLog.slice(axeFrom)))
          expect(blocking.length === 0, `${blocking.length} serious/critical axe violation(s):\n${blocking.join('\n')}`)
          passed++
          console.log(`  ✓ [${vp.name}] ${walk.name} (${Date.now() - started} ms)`)
        } catch (error) {
          failed++
          console.log(`  ✗ [${vp.name}] ${walk.name}\n      ${String(error?.message ?? error).split('\n').slice(0, 6).join('\n      ')}`)
          if (process.env.E2E_SCREENSHOTS) await page.screenshot({ path: `${process.env.E2E_SCREENSHOTS}/${vp.name}-${walk.name.replace(/\W+/g, '-')}.png`, fullPage: true })
        } finally {
          await context.close()
        }
      }
    }
  } finally {
    await browser.close()
    await db.end()
    await plinth.stop()
  }
  // The accessibility checks of the whole run (lib.mjs, checkA11y): serious
  // or critical violations fail the run, listed in full.
  if (axeChecks.size) {
    console.log(`\n${axeSummary().join('\n')}`)
    const blocking = axeBlocking()
    if (blocking.length) console.log(`axe: serious/critical violations:\n  ${blocking.join('\n  ')}`)
    // E2E_AXE_ALL=1 lists the moderate and minor ones too.
    else if (process.env.E2E_AXE_ALL) console.log(`axe: all violations:\n  ${axeBlocking(undefined, { all: true }).join('\n  ')}`)
    if (blocking.length && !failed) failed++
  }
  console.log(`\n${passed} passed, ${failed} failed`)
  process.exitCode = failed ? 1 : 0
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
