// What the console's browser walks share: waits that poll, sign-in through
// the real page, moving between sections (the sidebar on the desktop, the
// menu drawer on the phone), the width check and the screenshots.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { expect, expectNoSidewaysPan } from '../../app/e2e/lib.mjs'

export const TIMEOUT = 15_000
export const BASE = '/_/console'

// The same checks as the marketplace app's walks.
export { expect, expectNoSidewaysPan }

export async function waitUntil(test, what, timeout = TIMEOUT) {
  const until = Date.now() + timeout
  let last
  while (Date.now() < until) {
    try {
      if (await test()) return
    } catch (error) {
      last = error
    }
    await new Promise((ok) => setTimeout(ok, 150))
  }
  throw new Error(`timed out waiting for ${what}${last ? ` (${last.message})` : ''}`)
}

/** Waits until the locator's text contains `text`. */
export async function waitForText(locator, text, what = 'the text') {
  await waitUntil(async () => ((await locator.textContent()) ?? '').includes(text), `${what} to contain ${JSON.stringify(text)}`)
}

/** Signs in through the sign-in page and waits for the Users section. */
export async function signIn(page, ctx) {
  await page.goto(`${ctx.url}${BASE}/sign-in`)
  await page.getByLabel('Email').fill(ctx.operator.email)
  await page.getByLabel('Password').fill(ctx.operator.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((u) => u.pathname === `${BASE}/users`)
  await page.getByRole('heading', { level: 1, name: 'Users' }).waitFor()
}

/** Opens a section through the navigation the viewport shows. */
export async function openSection(page, ctx, label, heading = label) {
  if (ctx.viewport === 'phone') {
    await page.getByRole('button', { name: 'Open menu' }).click()
    const drawer = page.getByRole('dialog', { name: 'Menu' })
    await drawer.getByRole('link', { name: label, exact: true }).click()
    await drawer.waitFor({ state: 'detached' })
  } else {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click()
  }
  await page.getByRole('heading', { level: 1, name: heading }).waitFor()
}

/** A toast's text appears. */
export async function toast(page, text) {
  await page.locator('[data-sonner-toast]').filter({ hasText: text }).first().waitFor()
}


/**
 * With E2E_SCREENSHOTS_DIR set, saves the viewport as <section>-<width>.png:
 * the top of the page, or scrolled to `at` (a locator).
 */
export async function screenshot(page, section, at) {
  const dir = process.env.E2E_SCREENSHOTS_DIR
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  if (at) await at.evaluate((el) => el.scrollIntoView({ block: 'start' }))
  else await page.evaluate(() => window.scrollTo(0, 0))
  // Toasts are dismissed (they cover the section); the layout settles.
  for (const close of await page.locator('[data-sonner-toast] [data-close-button]').all()) await close.click().catch(() => {})
  await page.waitForTimeout(600)
  await page.screenshot({ path: join(dir, `${section}-${page.viewportSize().width}.png`), fullPage: false })
}

/** The console API as the signed-in browser (its cookie), outside the page: for set-up and checks. */
export function consoleApi(page, ctx) {
  const call = async (method, path, data) => {
    const response = await page.request.fetch(`${ctx.url}${BASE}/api${path}`, {
      method,
      headers: method === 'GET' ? {} : { 'x-plinth-console': '1', 'content-type': 'application/json' },
      data: data === undefined ? undefined : JSON.stringify(data),
    })
    const text = await response.text()
    return { status: response.status(), body: text ? JSON.parse(text) : null }
  }
  return { get: (path) => call('GET', path), post: (path, data) => call('POST', path, data) }
}

/** The node's anon key, read from the console's settings. */
export async function anonKey(page, ctx) {
  const settings = await consoleApi(page, ctx).get('/settings')
  expect(settings.status === 200, `GET /settings answered ${settings.status}`)
  return settings.body.keys.anon
}

export function unique(prefix) {
  return `${prefix}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}
