// Browser walks of what happens when the server is unreachable or slow
// (issue 24): screens show the retry state, not an empty page, and come back
// on "Try again" once the network does; a form whose submit fails keeps every
// field as typed and saves on the next try; a stalled request is given up
// after the request time limit.
//
// The network is cut with Playwright's request routing, for the REST API only
// (`/rest/v1/`): the page itself, its sign-in session (`/auth/v1/`) and the
// app's configuration still load, as after a dropped connection or a failing
// API. The time limit (15 s in the app) is lowered to TIMEOUT_MS for the slow
// case through `window.__plinthRequestTimeoutMs`, the app's test hook (see
// app/src/lib/timed-fetch.ts), set before the app starts.
import * as lib from '../lib.mjs'
import { apiVisitor, expect, signIn, visit, waitForCount } from '../lib.mjs'

const PASSWORD = 'a-long-password-1'
const PLANNER = 'e0000000-0000-4000-8000-000000000001' // Calm Weekly Planner, published
const REST = '**/rest/v1/**'
const TEMPLATES = (u) => u.pathname === '/rest/v1/templates'
const TIMEOUT_MS = 1500
const CONNECTION_TEXT = 'Check your connection and try again.'

/** The page's first retry state, once shown: checked to be an alert with the plain words and a Try again button. */
async function retryState(page, what) {
  const alert = page.getByTestId('load-error').first()
  await alert.waitFor()
  expect((await alert.getAttribute('role')) === 'alert', `${what}: the retry state is an alert`)
  expect((await alert.textContent()).includes(CONNECTION_TEXT), `${what}: the retry state says what to do`)
  await alert.getByRole('button', { name: 'Try again' }).waitFor()
  return alert
}

/** Fails when the page claims what the server never said (an empty list, "not found"). */
async function expectNoFalseEmpty(page, what) {
  for (const text of ['No templates found', 'Template Not Found', 'No templates available yet. Check back soon!', 'No trending templates yet']) {
    expect((await page.getByText(text, { exact: true }).count()) === 0, `${what}: shows "${text}" while the server is unreachable`)
  }
}

/**
 * An axe check of the retry state (lib.mjs's checkA11y, when there). The
 * screen's error toast is closed first: toasts are the accessibility walks'
 * to check, this one checks the retry state.
 */
async function checkA11y(page, viewport, state) {
  if (typeof lib.checkA11y !== 'function') return
  const toasts = page.locator('[data-sonner-toast]')
  for (const close of await page.getByRole('button', { name: 'Close toast' }).all()) await close.click().catch(() => {})
  await waitForCount(toasts, 0, 'toasts after closing them')
  await lib.checkA11y(page, { viewport, who: 'creator', state })
}

async function freshAccount(page, url, viewport, what, path) {
  const email = `e2e-${what}-${viewport}-${Date.now()}@example.com`
  const visitor = await apiVisitor(url, email)
  await signIn(page, url, email, PASSWORD, path)
  await page.waitForURL((u) => u.pathname === path)
  return visitor
}

export const walks = [
  {
    name: 'resilience: with the API unreachable, screens show the retry state and recover on Try again',
    async run(page, { url, viewport }) {
      await freshAccount(page, url, viewport, 'offline', '/dashboard')
      const screens = [
        {
          path: '/',
          loaded: async () => {
            await page.getByRole('region', { name: 'Trending Templates' }).getByRole('article').first().waitFor()
            // One Try again brings back every section of the page.
            await page.getByRole('region', { name: 'Latest Templates' }).getByRole('article').first().waitFor()
          },
        },
        { path: '/discover', loaded: () => page.getByRole('article').first().waitFor() },
        { path: `/template/${PLANNER}`, loaded: () => page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor() },
        { path: '/dashboard', loaded: () => page.getByTestId('status-published').waitFor() },
      ]
      for (const screen of screens) {
        await page.route(REST, (route) => route.abort('internetdisconnected'))
        await visit(page, url, screen.path)
        const alert = await retryState(page, screen.path)
        await expectNoFalseEmpty(page, screen.path)
        if (screen.path === '/discover') await checkA11y(page, viewport, 'retry state')
        await page.unroute(REST)
        await alert.getByRole('button', { name: 'Try again' }).click()
        await screen.loaded()
        await page.getByTestId('load-error').first().waitFor({ state: 'detached' })
      }
    },
  },
  {
    name: 'resilience: a profile form keeps every field when saving fails, then saves',
    async run(page, { url, viewport }) {
      const visitor = await freshAccount(page, url, viewport, 'keep', '/dashboard/profile')
      await page.getByRole('heading', { level: 1, name: 'Profile' }).waitFor()
      const displayName = page.getByRole('region', { name: 'Display Name' })
      const bio = page.getByRole('region', { name: 'Bio' })
      const social = page.getByRole('region', { name: 'Social Links' })
      const name = `Kept ${viewport} ${Date.now()}`
      await displayName.getByLabel('Display name').fill(name)
      await bio.getByLabel('Bio').fill('Typed while the server was away.')
      await social.getByLabel('Website').fill('https://example.com/kept')

      // Writes to the profile fail (the connection drops as they are sent); reads still work.
      const writes = []
      await page.route('**/rest/v1/profiles**', (route) => {
        if (route.request().method() === 'GET') return route.continue()
        writes.push(route.request().method())
        return route.abort('connectionreset')
      })
      await displayName.getByRole('button', { name: 'Save display name' }).click()
      await page.getByText('Failed to update display name', { exact: true }).first().waitFor()
      await bio.getByRole('button', { name: 'Save bio' }).click()
      await page.getByText('Failed to update bio', { exact: true }).first().waitFor()
      await social.getByRole('button', { name: 'Save social links' }).click()
      await page.getByText('Failed to update social links', { exact: true }).first().waitFor()
      expect(writes.length === 3, `three writes were tried: ${writes.join(', ')}`)
      expect((await displayName.getByLabel('Display name').inputValue()) === name, 'the display name is kept')
      expect((await bio.getByLabel('Bio').inputValue()) === 'Typed while the server was away.', 'the bio is kept')
      expect((await social.getByLabel('Website').inputValue()) === 'https://example.com/kept', 'the website is kept')
      expect((await page.getByTestId('load-error').count()) === 0, 'the form is not replaced by the retry state')

      await page.unroute('**/rest/v1/profiles**')
      await displayName.getByRole('button', { name: 'Save display name' }).click()
      await page.getByText('Display name updated successfully', { exact: true }).first().waitFor()
      await bio.getByRole('button', { name: 'Save bio' }).click()
      await page.getByText('Bio updated successfully', { exact: true }).first().waitFor()
      await social.getByRole('button', { name: 'Save social links' }).click()
      await page.getByText('Social links updated successfully', { exact: true }).first().waitFor()
      const [row] = await visitor.get(`profiles?id=eq.${visitor.id}&select=display_name,bio,social_links`)
      expect(row.display_name === name && row.bio === 'Typed while the server was away.', `the profile was saved as typed: ${JSON.stringify(row)}`)
      expect(row.social_links?.website === 'https://example.com/kept', `the website was saved: ${JSON.stringify(row.social_links)}`)
    },
  },
  {
    name: 'resilience: a stalled request is given up after the time limit and the page offers Try again',
    async run(page, { url }) {
      await page.addInitScript((ms) => {
        window.__plinthRequestTimeoutMs = ms
      }, TIMEOUT_MS)
      // The template's read never answers: the server has stalled.
      const stalled = []
      await page.route(TEMPLATES, (route) => {
        if (!route.request().url().includes(`id=eq.${PLANNER}`)) return route.continue()
        stalled.push(route)
      })
      const started = Date.now()
      await page.goto(`${url}/template/${PLANNER}`)
      const alert = await retryState(page, 'a stalled template read')
      const waited = Date.now() - started
      expect(waited >= TIMEOUT_MS, `the retry state came only after the time limit (${waited} ms)`)
      expect(stalled.length === 1, `a timed-out read is not sent again by itself (${stalled.length} sent)`)
      await expectNoFalseEmpty(page, 'a stalled template read')

      await page.unroute(TEMPLATES)
      for (const route of stalled) await route.abort().catch(() => {})
      await alert.getByRole('button', { name: 'Try again' }).click()
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
    },
  },
]
