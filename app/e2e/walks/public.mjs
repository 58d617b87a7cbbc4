// Browser walks of the public screens: home, discover, a template page (with
// a live upvote), sign-up and sign-in, categories, creators, a profile, 404.
import { apiVisitor, expect, logout, waitForCount, waitForText, waitUntil } from '../lib.mjs'

export const walks = [
  {
    name: 'home loads with trending and latest templates',
    async run(page, { url }) {
      await page.goto(url + '/')
      await page.getByRole('heading', { name: 'Find the perfect template for your workspace' }).waitFor()
      const trending = page.getByRole('region', { name: 'Trending Templates' })
      await trending.getByRole('article').first().waitFor()
      expect((await trending.getByRole('article').count()) === 3, 'three trending templates')
      const latest = page.getByRole('region', { name: 'Latest Templates' })
      await latest.getByRole('article').first().waitFor()
      expect((await latest.getByRole('article').count()) >= 4, 'a latest grid')
      // The newest published template, whichever walk published it.
      const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
      const [newest] = await (
        await fetch(`${url}/rest/v1/templates?is_published=eq.true&select=title&order=created_at.desc&limit=1`, {
          headers: { apikey: anonKey, authorization: `Bearer ${anonKey}` },
        })
      ).json()
      expect(newest?.title, 'a published template')
      await latest.getByRole('heading', { name: newest.title, exact: true }).first().waitFor()
      await page.getByText('Total Templates').waitFor()
      await page.getByRole('region', { name: 'Top Creators' }).getByRole('article').first().waitFor()
    },
  },
  {
    name: 'discover filters live in the URL',
    async run(page, { url }) {
      await page.goto(url + '/discover')
      await page.getByRole('article').first().waitFor()
      await page.getByLabel('Price').selectOption('free')
      await page.waitForURL(/price=free/)
      await page.getByRole('button', { name: 'Remove filter Price: Free' }).waitFor()
      await page.getByRole('searchbox', { name: 'Search templates' }).fill('habit')
      await page.waitForURL(/search=habit/)
      await page.getByRole('heading', { name: 'Habit Tracker' }).waitFor()
      await waitForCount(page.getByRole('article'), 1, 'free templates matching "habit"')
      await page.getByRole('button', { name: 'Clear Filters' }).click()
      await page.waitForURL((u) => u.search === '')
      await page.goto(url + '/discover?search=zzzz-nothing')
      await page.getByText('No templates found').waitFor()
    },
  },
  {
    name: 'a template page shows its details and the guest download modal',
    async run(page, { url }) {
      await page.goto(url + '/template/e0000000-0000-4000-8000-000000000001')
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      await page.getByRole('region', { name: 'About this template' }).getByText('What you get').waitFor()
      await page.getByText('Real Template').waitFor()
      await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
      const dialog = page.getByRole('dialog', { name: 'Get Your Free Template' })
      await dialog.waitFor()
      await dialog.getByRole('button', { name: 'Cancel' }).click()
      await dialog.waitFor({ state: 'hidden' })
      await page.getByRole('region', { name: 'You May Also Like' }).getByRole('article').first().waitFor()
      await page.goto(url + '/template/e0000000-0000-4000-8000-000000000003')
      await page.getByTestId('price').filter({ hasText: '$19.00' }).waitFor()
      await page.getByLabel('Email for your receipt and download').fill('buyer@example.com')
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.waitForURL(/\/checkout\?templateId=e0000000-0000-4000-8000-000000000003&buyerEmail=buyer%40example\.com/)
    },
  },
  {
    name: "an open template page shows another visitor's upvote live",
    async run(page, { url, viewport }) {
      const id = 'e0000000-0000-4000-8000-000000000001'
      // What the page's realtime socket receives: its join acknowledged, then the changes.
      const frames = []
      page.on('websocket', (ws) => {
        if (ws.url().includes('/realtime/v1/websocket')) ws.on('framereceived', (f) => frames.push(String(f.payload)))
      })
      const templateReads = []
      page.on('request', (r) => {
        if (r.url().includes('/rest/v1/templates?') && new URL(r.url()).searchParams.getAll('id').includes(`eq.${id}`)) templateReads.push(r.url())
      })
      const viewCounted = page.waitForResponse((r) => r.url().endsWith('/functions/v1/track-template-view')).catch(() => null)
      await page.goto(`${url}/template/${id}`)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      // A second after counting the view the page reads the template again; let
      // that pass first, so that only the live path can move the count.
      if ((await viewCounted)?.ok()) await waitUntil(() => templateReads.length >= 2, "the template's re-read after the view")
      await waitUntil(
        () => frames.some((f) => f.includes('"phx_reply"') && f.includes('realtime:template-upvotes:') && f.includes('"ok"')),
        'the upvote channel to be joined',
      )
      await page.evaluate(() => (window.__sameDocument = true))
      const count = page.getByTestId('upvote-count')
      const before = Number((await count.textContent()).replace(/\D/g, ''))
      const visitor = await apiVisitor(url, `e2e-voter-${viewport}-${Date.now()}@example.com`)

      await visitor.rest('POST', 'template_upvotes', { template_id: id, user_id: visitor.id })
      await waitForText(count, String(before + 1), 'the upvote count after the other upvote')
      expect(
        frames.some((f) => f.includes('"postgres_changes"') && f.includes('"INSERT"') && f.includes(visitor.id)),
        'the upvote arrived over the socket',
      )

      await visitor.rest('DELETE', `template_upvotes?template_id=eq.${id}&user_id=eq.${visitor.id}`)
      await waitForText(count, String(before), 'the upvote count after its removal')
      expect(
        frames.some((f) => f.includes('"postgres_changes"') && f.includes('"DELETE"') && f.includes(visitor.id)),
        'the removal arrived over the socket',
      )
      expect(await page.evaluate(() => window.__sameDocument === true), 'the page was not reloaded')
    },
  },
  {
    name: 'sign up, sign out and sign in again',
    async run(page, { url, viewport }) {
      const email = `e2e-${viewport}-${Date.now()}@example.com`
      await page.goto(url + '/auth?mode=sign-up')
      await page.getByLabel('Display name').fill('E2E Person')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('a-long-password-1')
      await page.getByRole('button', { name: 'Create Account' }).click()
      await page.getByText('Account created!').waitFor()
      // With e-mail autoconfirm the new account is signed in at once.
      await page.waitForURL((u) => u.pathname === '/')
      if (viewport === 'phone') {
        // The toast shows below the sticky header, never over its menu button.
        // (measured once its entrance has settled: the same place twice)
        let toast = null
        for (let seen = null, tries = 0; !toast && tries < 50; tries++, await page.waitForTimeout(100)) {
          const now = await page.getByText('Account created!').boundingBox()
          if (now && seen && now.y === seen.y) toast = now
          seen = now
        }
        const header = await page.getByRole('banner').boundingBox()
        expect(toast && header && toast.y >= header.y + header.height, `toast ${JSON.stringify(toast)} over the header ${JSON.stringify(header)}`)
        await page.getByRole('button', { name: 'Open menu' }).click()
        await page.getByRole('dialog', { name: 'Menu' }).getByText('E2E Person').waitFor()
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Close menu' }).click()
      } else {
        await page.getByRole('button', { name: 'Account menu' }).waitFor()
      }
      await logout(page, viewport)
      await page.goto(url + '/auth?mode=sign-in&redirect=%2Fcreators')
      await page.getByLabel('Email').fill(email)
      await page.getByLabel('Password').fill('a-long-password-1')
      await page.getByRole('button', { name: 'Sign In' }).click()
      await page.getByText('Welcome back!').first().waitFor()
      await page.waitForURL(/\/creators$/)
      await logout(page, viewport)
      // The demo account signs in too, and is sent to a guarded page after.
      await page.goto(url + '/dashboard')
      await page.waitForURL(/\/auth\?mode=sign-in&redirect=%2Fdashboard/)
      await page.getByLabel('Email').fill('maya@demo.plinth.dev')
      await page.getByLabel('Password').fill('demo-password')
      await page.getByRole('button', { name: 'Sign In' }).click()
      await page.waitForURL(/\/dashboard$/)
    },
  },
  {
    name: 'categories, a category, creators, a profile and the 404 page',
    async run(page, { url }) {
      await page.goto(url + '/categories')
      await page.getByRole('link', { name: /Business/ }).click()
      await page.getByRole('heading', { level: 1, name: 'Business' }).waitFor()
      await page.getByText('2 templates found').waitFor()
      await page.goto(url + '/creators')
      await page.getByRole('article').first().waitFor()
      await page.goto(url + '/profile/mayachen')
      await page.getByRole('heading', { level: 1, name: 'Maya Chen' }).waitFor()
      await page.getByRole('region', { name: 'Creator statistics' }).waitFor()
      // A path the app has no screen for: its not-found screen, and a 404
      // for crawlers (the server reads the build's routes.json).
      const missing = await page.goto(url + '/nowhere')
      expect(missing.status() === 404, `/nowhere answers ${missing.status()}`)
      await page.getByText('Oops! Page not found').waitFor()
    },
  },
]
