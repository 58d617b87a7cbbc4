// Browser walks of navigation (issue 15): a URL the person opens in a
// signed-in tab wins over the remembered path, and only a sign-in without a
// redirect target of its own goes back to where the tab was (item 1); Back
// steps through Discover's filters (item 10); the header's Discover and
// Categories are links with their menus beside them (item 12).
import { logout } from '../lib.mjs'

const LEO = 'leo@demo.plinth.dev'
const PLANNER = '/template/e0000000-0000-4000-8000-000000000001'
// The spec's restore ran 100 ms after the session was known; waiting ten
// times that long after the page has settled shows that nothing moves.
const WELL_PAST_THE_RESTORE_DELAY_MS = 1000

/** The path the tab remembers, as the app stores it for the session. */
function rememberedPath(page) {
  return page.evaluate(() => JSON.parse(sessionStorage.getItem('marketplace.nav-memory') ?? 'null')?.state?.lastPath ?? null)
}

async function signInHere(page, email) {
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('demo-password')
  await page.getByRole('button', { name: 'Sign In' }).click()
  await page.waitForURL((u) => u.pathname !== '/auth')
}

async function stays(page, path, what) {
  await page.waitForFunction((p) => JSON.parse(sessionStorage.getItem('marketplace.nav-memory') ?? 'null')?.state?.lastPath === p, path)
  await page.waitForTimeout(WELL_PAST_THE_RESTORE_DELAY_MS)
  const now = new URL(page.url())
  if (now.pathname + now.search !== path) throw new Error(`${what}: expected to stay at ${path}, now at ${now.pathname + now.search}`)
}

export const walks = [
  {
    name: 'navigation: a signed-in tab opens a typed URL, and a reload stays put',
    async run(page, { url }) {
      await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent('/dashboard/settings')}`)
      await signInHere(page, LEO)
      await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor()
      // A fresh load of another URL, as typed, pasted or bookmarked.
      await page.goto(url + PLANNER)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      await page.getByRole('button', { name: 'Account menu' }).or(page.getByRole('button', { name: 'Open menu' })).first().waitFor()
      await stays(page, PLANNER, 'a typed template URL')
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      // A reload of the same path changes nothing.
      await page.reload()
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      await stays(page, PLANNER, 'a reload')
    },
  },
  {
    name: 'navigation: signing in without a redirect goes back to the remembered path, with one goes there',
    async run(page, { url, viewport }) {
      await page.goto(`${url}/auth?mode=sign-in`)
      await signInHere(page, LEO)
      await page.goto(url + '/discover')
      await logout(page, viewport)
      // Signed out, a guarded page sends the visitor to sign in and is remembered.
      await page.goto(url + '/dashboard/settings')
      await page.waitForURL((u) => u.pathname === '/auth')
      if ((await rememberedPath(page)) !== '/dashboard/settings') throw new Error('the guarded path is remembered')
      // Signing in from a plain sign-in page (no redirect) returns there.
      await page.goto(`${url}/auth?mode=sign-in`)
      await signInHere(page, LEO)
      await page.waitForURL((u) => u.pathname === '/dashboard/settings')
      await page.getByRole('heading', { level: 1, name: 'Settings', exact: true }).waitFor()
      // Signed out again: an explicit redirect target wins over the memory.
      await logout(page, viewport)
      await page.goto(url + '/dashboard/settings')
      await page.waitForURL((u) => u.pathname === '/auth')
      await page.goto(`${url}/auth?mode=sign-in&redirect=${encodeURIComponent('/creators')}`)
      await signInHere(page, LEO)
      await page.waitForURL((u) => u.pathname === '/creators')
      await stays(page, '/creators', 'an explicit redirect')
    },
  },
  {
    name: 'navigation: Back steps through Discover filter changes and stays on Discover',
    async run(page, { url }) {
      await page.goto(url + '/creators')
      await page.goto(url + '/discover')
      await page.getByRole('article').first().waitFor()
      await page.getByLabel('Category').selectOption('productivity')
      await page.waitForURL((u) => u.search === '?category=productivity')
      await page.getByLabel('Price').selectOption('free')
      await page.waitForURL((u) => u.search === '?category=productivity&price=free')
      // Back is waited for by its URL alone ('commit'): a page Chromium
      // restores from its back/forward cache fires no load event.
      await page.goBack({ waitUntil: 'commit' })
      await page.waitForURL((u) => u.pathname === '/discover' && u.search === '?category=productivity', { waitUntil: 'commit' })
      await page.getByRole('button', { name: 'Remove filter Category: Productivity' }).waitFor()
      await page.waitForFunction(() => document.querySelector('#discover-price')?.value === 'all')
      await page.goBack({ waitUntil: 'commit' })
      await page.waitForURL((u) => u.pathname === '/discover' && u.search === '', { waitUntil: 'commit' })
      await page.waitForFunction(() => document.querySelector('#discover-category')?.value === 'all')
      await page.goBack({ waitUntil: 'commit' })
      await page.waitForURL((u) => u.pathname === '/creators', { waitUntil: 'commit' })
      await page.getByRole('heading', { level: 1 }).first().waitFor()
    },
  },
  {
    name: 'navigation: the header Discover and Categories are links with their menus beside them',
    async run(page, { url, viewport }) {
      if (viewport === 'phone') {
        // Below 768 px the drawer replaces the menu; its entries are links.
        await page.goto(url + '/creators')
        await page.getByRole('button', { name: 'Open menu' }).click()
        const drawer = page.getByRole('dialog', { name: 'Menu' })
        await drawer.getByRole('link', { name: 'Browse All' }).click()
        await page.waitForURL((u) => u.pathname === '/discover' && u.search === '')
        return
      }
      await page.goto(url + '/creators')
      const main = page.getByRole('navigation', { name: 'Main' })
      const discover = main.getByRole('link', { name: 'Discover', exact: true })
      if ((await discover.getAttribute('href')) !== '/discover') throw new Error('Discover links to /discover')
      const categories = main.getByRole('link', { name: 'Categories', exact: true })
      if ((await categories.getAttribute('href')) !== '/categories') throw new Error('Categories links to /categories')
      // The toggle beside it opens the menu from the keyboard.
      const toggle = main.getByRole('button', { name: 'Discover menu' })
      await toggle.focus()
      await page.keyboard.press('Enter')
      await page.getByRole('menuitem', { name: 'Free Templates' }).click()
      await page.waitForURL((u) => u.pathname === '/discover' && u.search === '?price=free')
      await main.getByRole('button', { name: 'Categories menu' }).click()
      await page.getByRole('menuitem', { name: 'View All' }).click()
      await page.waitForURL((u) => u.pathname === '/categories')
      await discover.click()
      await page.waitForURL((u) => u.pathname === '/discover' && u.search === '')
    },
  },
]
