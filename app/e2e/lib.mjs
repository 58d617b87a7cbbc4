// What the browser walks share: waits that poll (with the walks' timeout),
// sign-in and sign-out through the real UI, and another visitor that acts
// through the HTTP API, outside the browser.
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

export const TIMEOUT = 15_000

export function expect(condition, message) {
  if (!condition) throw new Error(message)
}

/** The dev mailbox's messages to `to`, newest first, read with the token plinth printed at start-up. */
export async function mailboxMessages(url, to) {
  const token = process.env.PLINTH_E2E_MAILBOX_TOKEN
  const response = await fetch(`${url}/_/mailbox/api/messages?to=${encodeURIComponent(to)}&token=${encodeURIComponent(token)}`)
  expect(response.ok, `the mailbox answered ${response.status}`)
  return (await response.json()).messages
}

export async function waitForCount(locator, n, what) {
  const until = Date.now() + TIMEOUT
  let count = -1
  while (Date.now() < until) {
    count = await locator.count()
    if (count === n) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`expected ${n} ${what}, saw ${count}`)
}

export async function logout(page, viewport) {
  if (viewport === 'phone') {
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Logout' }).click()
    await page.getByRole('button', { name: 'Open menu' }).click()
    const drawer = page.getByRole('dialog', { name: 'Menu' })
    await drawer.getByRole('link', { name: 'Sign In' }).waitFor()
    await drawer.getByRole('button', { name: 'Close menu' }).click()
  } else {
    await page.getByRole('button', { name: 'Account menu' }).click()
    await page.getByRole('menuitem', { name: 'Logout' }).click()
    await page.getByRole('banner').getByRole('link', { name: 'Sign In' }).waitFor()
  }
}

export async function waitForText(locator, text, what) {
  const until = Date.now() + TIMEOUT
  let seen = null
  while (Date.now() < until) {
    seen = (await locator.textContent())?.trim()
    if (seen === text) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`expected ${what} to read ${text}, saw ${seen}`)
}

/** Waits for `test` (which may be async, e.g. reading through the API) to hold, asking every 100 ms for up to `ms`. */
export async function waitUntil(test, what, ms = TIMEOUT) {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (await test()) return
    await new Promise((ok) => setTimeout(ok, 100))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Talks to the REST API as the holder of `token`: `rest(method, path, payload)` expects success; `get(path)` answers the rows. */
function restAs(url, anonKey, token) {
  const call = async (method, path, payload, prefer = 'return=minimal') => {
    const r = await fetch(`${url}/rest/v1/${path}`, {
      method,
      headers: {
        apikey: anonKey,
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        prefer,
      },
      body: payload === undefined ? undefined : JSON.stringify(payload),
    })
    const text = await r.text()
    expect(r.ok, `${method} /rest/v1/${path}: ${r.status} ${text}`)
    return text ? JSON.parse(text) : null
  }
  return {
    rest: (method, path, payload) => call(method, path, payload),
    get: (path) => call('GET', path),
  }
}

async function anonKeyOf(url) {
  return (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
}

// --- TOTP as an authenticator app computes it (RFC 6238: HMAC-SHA1, 30-second steps, 6 digits).
function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = 0
  let value = 0
  const out = []
  for (const c of text.replace(/[\s=]/g, '').toUpperCase()) {
    const index = alphabet.indexOf(c)
    expect(index >= 0, `the secret ${text} is not base32`)
    value = ((value << 5) | index) & 0xffff
    bits += 5
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff)
      bits -= 8
    }
  }
  return Buffer.from(out)
}

/** The RFC 6238 code (HMAC-SHA1, 6 digits) of `secret` for time step `step`. */
export function totp(secret, step) {
  const counter = Buffer.alloc(8)
  counter.writeBigUInt64BE(BigInt(step))
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest()
  const offset = mac[mac.length - 1] & 0x0f
  return String((mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0')
}

/** The current TOTP time step (30 seconds). */
export const stepNow = () => Math.floor(Date.now() / 30_000)

/**
 * Enrolls and verifies a TOTP factor named `name` through the HTTP API, as
 * the holder of `token` (another session than the browser's): its secret,
 * the step its code was from, and the anon key.
 */
export async function enrollTotpThroughApi(url, token, name) {
  const anonKey = await anonKeyOf(url)
  const call = async (path, body) => {
    const response = await fetch(`${url}/auth/v1${path}`, {
      method: 'POST',
      headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    const json = await response.json()
    expect(response.ok, `POST ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  const factor = await call('/factors', { factor_type: 'totp', friendly_name: name })
  const challenge = await call(`/factors/${factor.id}/challenge`, {})
  const step = stepNow()
  await call(`/factors/${factor.id}/verify`, { challenge_id: challenge.id, code: totp(factor.totp.secret, step) })
  return { secret: factor.totp.secret, step, anonKey }
}

/** A guest's paid order, started through create-payment-intent outside the browser: the intent's answer. */
export async function startGuestPayment(url, templateId, buyerEmail) {
  const anonKey = await anonKeyOf(url)
  const headers = { apikey: anonKey, authorization: `Bearer ${anonKey}`, 'content-type': 'application/json' }
  const created = await fetch(`${url}/functions/v1/create-payment-intent`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ templateId, buyerEmail }),
  })
  const intent = await created.json()
  expect(created.ok && intent.provider === 'simulated', `create-payment-intent: ${created.status} ${JSON.stringify(intent)}`)
  return intent
}

/** Pays a started simulated payment, as its confirmation page does. */
export async function confirmSimulated(url, intent) {
  const anonKey = await anonKeyOf(url)
  const paymentId = new URL(intent.confirmUrl).pathname.split('/').pop()
  const confirmed = await fetch(`${url}/api/simulated-payments/${paymentId}/confirm`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${anonKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ client_secret: intent.clientSecret }),
  })
  expect(confirmed.ok, `the simulated confirmation answered ${confirmed.status}`)
}

/** Another visitor, outside the browser: signs up through the API. */
export async function apiVisitor(url, email) {
  const anonKey = await anonKeyOf(url)
  const response = await fetch(`${url}/auth/v1/signup`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'a-long-password-1' }),
  })
  const body = await response.json()
  expect(response.ok && body.access_token, `sign-up through the API: ${response.status} ${JSON.stringify(body)}`)
  return { id: body.user.id, token: body.access_token, ...restAs(url, anonKey, body.access_token) }
}

/** An existing account (a demo one, say), signed in through the API. */
export async function apiAccount(url, email, password = 'demo-password') {
  const anonKey = await anonKeyOf(url)
  const response = await fetch(`${url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  const body = await response.json()
  expect(response.ok && body.access_token, `sign-in through the API: ${response.status} ${JSON.stringify(body)}`)
  return { id: body.user.id, token: body.access_token, ...restAs(url, anonKey, body.access_token) }
}

/**
 * A free template in Productivity submitted for review by `creator` (from
 * apiVisitor or apiAccount); `extra` adds columns, such as `template_url` or
 * `template_file_url` (approval refuses a template with nothing to download,
 * issue 44 item 3). Answers the pending template's id.
 */
export async function submitForReview(creator, title, extra = {}) {
  const [category] = await creator.get('categories?slug=eq.productivity&select=id')
  await creator.rest('POST', 'templates_pending_approval', {
    creator_id: creator.id,
    title,
    description: 'Waiting for a review.',
    about_template: 'A template to review.',
    category_id: category.id,
    price: 0,
    price_in_cents: 0,
    tags: ['walk'],
    status: 'Pending Approval',
    ...extra,
  })
  const [row] = await creator.get(`templates_pending_approval?creator_id=eq.${creator.id}&title=eq.${encodeURIComponent(title)}&select=id`)
  return row.id
}

/**
 * Waits until the app has replaced the HTML's loading shell (app/index.html):
 * the shell has a header and, on `/`, Home's headline of its own, so a walk
 * that moves focus must not start on it.
 */
export async function appStarted(page) {
  await page.locator('[data-loading-shell]').waitFor({ state: 'detached' })
}

/** Signs in through the auth page and waits to leave it. */
export async function signIn(page, url, email, password = 'demo-password', redirect = '/') {
  await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent(redirect)}`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign In' }).click()
  await page.waitForURL((u) => u.pathname !== '/auth')
}

/**
 * Opens a path as if typed into the address bar of a signed-in tab: a fresh
 * load stays on the URL it opened (issue 15, item 1; the walk
 * 'navigation.mjs' covers it).
 */
export async function visit(page, url, path) {
  await page.goto(url + path)
  await page.waitForURL((u) => u.pathname + u.search === path)
}

/**
 * Fails when the page is wider than its viewport (it would pan sideways),
 * naming what sticks out. `window.innerWidth` alone does not tell: a phone
 * browser zooms out to fit a page that is too wide, and then reports the
 * wider width as innerWidth. So the page must fit the viewport the browser
 * was given, too.
 */
export async function expectNoSidewaysPan(page, what) {
  const width = page.viewportSize().width
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }))
  if (scrollWidth > innerWidth || scrollWidth > width) {
    const wide = await page.evaluate(
      (w) =>
        [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > w + 1)
          // Skip what a scrolling box clips (an absolute element is not clipped by a box that is not positioned).
          .filter((el) => {
            if (getComputedStyle(el).position === 'absolute') return true
            for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
              if (getComputedStyle(a).overflowX !== 'visible') return false
            }
            return true
          })
          .slice(0, 5)
          .map((el) => `${el.tagName}.${String(el.className).slice(0, 60)}`),
      width,
    )
    throw new Error(`${what} is ${scrollWidth} px wide in a ${width} px viewport (innerWidth ${innerWidth}); beyond it: ${wide.join(' | ')}`)
  }
}

// ---------------------------------------------------------------------------
// Accessibility (issue 24): axe-core, run inside the page.
//
// `checkA11y(page, { viewport, who, state })` injects axe-core's own source
// (from node_modules, no network) into the page and runs the rules tagged
// WCAG 2.0/2.1/2.2 A and AA plus axe's best practices. Each check is recorded
// under its screen: the URL's path and query, the viewport, who is signed in
// (visitor, creator, admin) and the state shown (an open menu or dialog).
// run.mjs fails a walk whose checks found a serious or critical violation and
// prints the whole run's summary (`axeSummary`) at its end.

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice']
const BLOCKING = new Set(['critical', 'serious'])

/** Every checked screen of the run, by `${viewport} | ${who} | ${screen}`: its violations. */
export const axeChecks = new Map()
/** The keys of `axeChecks` in the order they were checked (a walk's own are a slice of it). */
export const axeLog = []
/** The time the run spent in checkA11y. */
const axeTime = { ms: 0 }

/** Runs axe on the page as it is now; records and answers the violations ({ id, impact, help, targets }). */
export async function checkA11y(page, { viewport, who = 'visitor', state } = {}) {
  const started = Date.now()
  // axe reads colours as painted: a toast fading in or out is blended with
  // the page behind it, so wait (a few seconds at most) until none moves.
  await page
    .waitForFunction(() => [...document.querySelectorAll('[data-sonner-toast]')].every((t) => t.getAnimations({ subtree: true }).length === 0), null, {
      timeout: 5_000,
      polling: 50,
    })
    .catch(() => {})
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE_SOURCE)
  const violations = await page.evaluate(async (tags) => {
    const results = await window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] })
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      more: Math.max(0, v.nodes.length - 5),
      // The first element's HTML and what axe found wrong with it (for colour contrast: the colours and ratio).
      first: `${v.nodes[0]?.html.slice(0, 160)} -- ${String(v.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 240)}`,
    }))
  }, AXE_TAGS)
  const u = new URL(page.url())
  const screen = `${u.pathname}${u.search}${state ? ` [${state}]` : ''}`
  const vp = viewport ?? (page.viewportSize().width < 768 ? 'phone' : 'desktop')
  const key = `${vp} | ${who} | ${screen}`
  axeChecks.set(key, violations)
  axeLog.push(key)
  axeTime.ms += Date.now() - started
  return violations
}

/** The serious and critical violations (every violation with `all`) recorded under `keys`, one line each. */
export function axeBlocking(keys = [...axeChecks.keys()], { all = false } = {}) {
  const lines = []
  for (const key of keys) {
    for (const v of axeChecks.get(key) ?? []) {
      if (!all && !BLOCKING.has(v.impact)) continue
      lines.push(
        `${v.impact} ${v.id} on ${key}: ${v.help} -- ${v.targets.join(', ')}${v.more ? ` (+${v.more} more)` : ''}\n      first: ${v.first}`,
      )
    }
  }
  return lines
}

/** The run's summary: screens checked per viewport and violations (one per rule and screen) by impact. */
export function axeSummary() {
  const perViewport = {}
  const byImpact = { critical: 0, serious: 0, moderate: 0, minor: 0 }
  const rules = new Map()
  for (const [key, violations] of axeChecks) {
    const vp = key.split(' | ')[0]
    perViewport[vp] = (perViewport[vp] ?? 0) + 1
    for (const v of violations) {
      byImpact[v.impact] = (byImpact[v.impact] ?? 0) + 1
      rules.set(`${v.id} (${v.impact})`, (rules.get(`${v.id} (${v.impact})`) ?? 0) + 1)
    }
  }
  const vps = Object.entries(perViewport).map(([vp, n]) => `${vp} ${n}`).join(', ')
  const counts = Object.entries(byImpact).map(([impact, n]) => `${n} ${impact}`).join(', ')
  const lines = [`axe: ${axeChecks.size} screens checked (${vps}): ${counts} (${(axeTime.ms / 1000).toFixed(1)} s in axe)`]
  if (rules.size) lines.push(`axe rules violated: ${[...rules].map(([rule, n]) => `${rule} x${n}`).join(', ')}`)
  return lines
}

/**
 * Whether what has focus shows it: some outline, box-shadow (a ring), border
 * or background of the focused element, or of an ancestor up to three levels
 * up (a card that rings with focus-within), differs from how it looks without
 * focus. Compared by moving focus on with Tab and back with Shift+Tab (so
 * keyboard-only walks may use it), and never inside a menu (Tab closes it).
 * Answers a description of the focused element.
 */
export async function expectFocusVisible(page, what) {
  const before = await page.evaluate(() => {
    // Colour and shadow transitions (Tailwind's 150 ms) jump to their end: the look is the settled one.
    const settle = () => document.getAnimations().forEach((a) => a instanceof CSSTransition && a.finish())
    settle()
    const el = document.activeElement
    if (!el || el === document.body) return null
    const chain = []
    for (let a = el; a && chain.length < 4; a = a.parentElement) chain.push(a)
    const look = (e) => {
      const s = getComputedStyle(e)
      return [s.outlineStyle === 'none' ? 'none' : `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`, s.boxShadow, s.borderColor, s.backgroundColor, s.textDecorationLine]
    }
    window.__focusCheck = { el, chain, looks: chain.map(look), look, settle }
    return {
      name: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`,
      focusVisible: el.matches(':focus-visible'),
    }
  })
  expect(before, `${what}: nothing has focus`)
  expect(before.focusVisible, `${what}: ${before.name} has focus but does not match :focus-visible`)
  await page.keyboard.press('Tab')
  const changed = await page.evaluate(() => {
    const { chain, looks, look, settle } = window.__focusCheck
    settle()
    return chain.some((e, i) => {
      const now = look(e)
      const then = looks[i]
      return now.some((value, k) => value !== then[k])
    })
  })
  await page.keyboard.press('Shift+Tab')
  const back = await page.evaluate(() => document.activeElement === window.__focusCheck.el)
  expect(changed, `${what}: ${before.name} shows no visible focus indicator`)
  expect(back, `${what}: Shift+Tab did not return to ${before.name}`)
  return before.name
}
