// Issue 44's low items about layout and small controls, at both viewports:
// the phone drawer's Logout in view without scrolling; the admin queue's
// Status and Review in plain view on a phone (no inner sideways scroll); the
// wishlist's Remove button; a profile's Templates and Downloads shown once;
// Home's Active Creators counting only creators with a published template.
import { apiAccount, apiVisitor, checkA11y, expect, expectNoSidewaysPan, signIn, waitUntil } from '../lib.mjs'

const PASSWORD = 'a-long-password-1'

export const walks = [
  {
    name: 'small fixes: wishlist Remove, the drawer Logout in view, one set of profile statistics',
    async run(page, { url, viewport }) {
      // A fresh buyer with two saved templates.
      const email = `e2e-wish-${viewport}-${Date.now()}@example.com`
      const buyer = await apiVisitor(url, email)
      const saved = await buyer.get('templates?title=in.(%22Habit%20Tracker%22,%22Team%20Wiki%22)&select=id,title')
      expect(saved.length === 2, `two demo templates to save: ${JSON.stringify(saved)}`)
      for (const t of saved) await buyer.rest('POST', 'wishlist', { user_id: buyer.id, template_id: t.id })

      await signIn(page, url, email, PASSWORD, '/dashboard/wishlist')
      await page.waitForURL((u) => u.pathname === '/dashboard/wishlist')
      const card = (title) => page.getByRole('article').filter({ has: page.getByRole('heading', { name: title }) })
      await card('Habit Tracker').waitFor()
      await card('Team Wiki').waitFor()
      await checkA11y(page, { viewport, who: 'buyer', state: 'wishlist with Remove' })
      await page.getByRole('button', { name: 'Remove Habit Tracker from wishlist' }).click()
      await page.getByText('Removed from Wishlist').first().waitFor()
      await card('Habit Tracker').waitFor({ state: 'detached' })
      await card('Team Wiki').waitFor()
      await waitUntil(async () => (await buyer.get(`wishlist?user_id=eq.${buyer.id}&select=template_id`)).length === 1, 'one wishlist row left')
      await expectNoSidewaysPan(page, 'the wishlist')

      // The drawer (phone): Logout in view at once, without scrolling the drawer.
      if (viewport === 'phone') {
        await page.getByRole('button', { name: 'Open menu' }).click()
        const drawer = page.getByRole('dialog', { name: 'Menu' })
        const logout = drawer.getByRole('button', { name: 'Logout' })
        await logout.waitFor()
        const box = await logout.boundingBox()
        const height = page.viewportSize().height
        expect(box && box.y >= 0 && box.y + box.height <= height, `Logout in view: ${JSON.stringify(box)} in ${height} px`)
        const hit = await logout.evaluate((el) => {
          const r = el.getBoundingClientRect()
          return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2))
        })
        expect(hit, 'Logout is the element at its place (nothing covers it)')
        expect((await page.getByTestId('drawer-scroll').evaluate((el) => el.scrollTop)) === 0, 'the drawer was not scrolled')
        await checkA11y(page, { viewport, who: 'buyer', state: 'drawer open' })
        await logout.click()
        await page.getByRole('button', { name: 'Open menu' }).click()
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Sign In' }).waitFor()
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('button', { name: 'Close menu' }).click()
      }

      // A profile shows Templates and Downloads once (in its creator statistics).
      await page.goto(`${url}/profile/mayachen`)
      await page.getByRole('region', { name: 'Creator statistics' }).waitFor()
      await page.getByTestId('stat-followers').waitFor()
      for (const label of ['Templates', 'Downloads']) {
        const n = await page.locator('dt').filter({ hasText: new RegExp(`^${label}$`) }).count()
        expect(n === 1, `${label} is shown ${n} times on the profile`)
      }
      await expectNoSidewaysPan(page, 'the profile')
    },
  },
  {
    name: "small fixes: the admin queue's Status and Review in plain view; Active Creators counts creators",
    async run(page, { url, viewport, sql }) {
      // Active Creators: profiles with a published template, not every account.
      const [{ creators, accounts }] = await sql(
        `select (select count(*) from public.profiles p where exists (select 1 from public.templates t where t.user_id = p.id and t.is_published))::int as creators,
                (select count(*) from public.profiles)::int as accounts`,
      )
      expect(accounts > creators, `more accounts (${accounts}) than creators (${creators}) for the count to tell`)
      await page.goto(`${url}/`)
      const stat = page.getByTestId('home-stat-active-creators')
      await waitUntil(async () => (await stat.textContent()).trim() === creators.toLocaleString('en-US'), `Active Creators to read ${creators} (not ${accounts} accounts)`)

      // The queue, with a submission of its own to look at.
      const creator = await apiVisitor(url, `e2e-queue-${viewport}-${Date.now()}@example.com`)
      const [category] = await creator.get('categories?slug=eq.business&select=id')
      const title = `Queue ${viewport.slice(0, 1)} ${(Date.now() % 1_000_000).toString(36)}`
      await creator.rest('POST', 'templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'A submission with a long description to see the queue lay out on a phone.',
        category_id: category.id,
        price: 0,
        price_in_cents: 0,
        tags: [],
        template_url: 'https://example.com/templates/queue',
        status: 'Pending Approval',
      })
      await signIn(page, url, 'admin@demo.plinth.dev', 'demo-password', '/dashboard/admin')
      await page.waitForURL(/\/dashboard\/admin$/)
      const row = page.getByTestId('pending-row').filter({ hasText: title })
      await row.waitFor()
      const width = page.viewportSize().width
      for (const [what, locator] of [
        ['Status', page.getByLabel(`Status of ${title}`)],
        ['Review', page.getByRole('link', { name: `Review ${title}` })],
      ]) {
        await locator.scrollIntoViewIfNeeded()
        const box = await locator.boundingBox()
        expect(box && box.x >= 0 && box.x + box.width <= width, `${what} within the ${width} px viewport: ${JSON.stringify(box)}`)
        expect(await locator.isVisible(), `${what} visible`)
        // Nothing around it scrolls sideways: it is in view, not at the end of an inner scroll area.
        const hidden = await locator.evaluate((el) => {
          for (let a = el.parentElement; a; a = a.parentElement) if (a.scrollWidth > a.clientWidth + 1 && getComputedStyle(a).overflowX !== 'visible') return a.tagName
          return null
        })
        expect(!hidden, `${what} sits in a sideways-scrolling ${hidden}`)
      }
      if (viewport === 'phone') {
        // Each value is named on the phone, where the table's head is hidden.
        await row.getByText('Status', { exact: true }).waitFor()
        await row.getByText('Creator', { exact: true }).waitFor()
      }
      await expectNoSidewaysPan(page, 'the admin queue')
      await checkA11y(page, { viewport, who: 'admin', state: 'queue' })
      const admin = await apiAccount(url, 'admin@demo.plinth.dev')
      const [pending] = await admin.get(`templates_pending_approval?title=eq.${encodeURIComponent(title)}&select=id`)
      await admin.rest('DELETE', `templates_pending_approval?id=eq.${pending.id}`)
    },
  },
]
