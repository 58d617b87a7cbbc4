// Browser walks of the phone layout (issue 15, items 2, 11 and 5): the admin
// queue and the My Templates tabs fit a phone's width; the page never pans
// sideways, and the active tab is in view; a template's price and main action
// are in view on a phone without scrolling (a sticky bar), not duplicated on a
// desktop.
import { apiVisitor, expect, expectNoSidewaysPan, signIn } from '../lib.mjs'

const ADMIN = 'admin@demo.plinth.dev'

// The issue measured a 375 px phone; the runner's phone is 390 px wide.
async function narrowPhone(page, viewport) {
  if (viewport === 'phone') await page.setViewportSize({ width: 375, height: 812 })
}

export const walks = [
  {
    name: 'phone-layout: the admin queue fits the window',
    async run(page, { url, viewport }) {
      // A submission waits in the queue, so the queue has a row to lay out.
      const creator = await apiVisitor(url, `e2e-phone-creator-${viewport}-${Date.now()}@example.com`)
      const [education] = await creator.get('categories?slug=eq.education&select=id')
      const title = `Phone layout ${viewport} ${Date.now() % 1_000_000}`
      await creator.rest('POST', 'templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'A submission waiting for review, laid out on a phone.',
        about_template: 'A planner.',
        category_id: education.id,
        price: 0,
        price_in_cents: 0,
        tags: ['phone'],
        status: 'Pending Approval',
      })
      await narrowPhone(page, viewport)
      await signIn(page, url, ADMIN, 'demo-password', '/dashboard/admin')
      await page.waitForURL(/\/dashboard\/admin$/)
      await page.getByRole('heading', { name: 'Admin Panel' }).waitFor()
      await page.getByTestId('pending-row').filter({ hasText: title }).first().waitFor()
      await expectNoSidewaysPan(page, 'the admin panel')
    },
  },
  {
    name: 'phone-layout: My Templates ?tab=rejected shows its active tab and fits the window',
    async run(page, { url, viewport }) {
      await narrowPhone(page, viewport)
      await signIn(page, url, ADMIN, 'demo-password', '/dashboard/templates?tab=rejected')
      await page.waitForURL(/\/dashboard\/templates\?tab=rejected$/)
      const tab = page.getByRole('tab', { name: /Rejected/, selected: true })
      await tab.waitFor()
      await expectNoSidewaysPan(page, 'My Templates')
      await page.waitForFunction(() => {
        const el = document.querySelector('[role="tab"][aria-selected="true"]')
        const r = el?.getBoundingClientRect()
        return !!r && r.left >= 0 && r.right <= window.innerWidth
      })
    },
  },
  {
    name: 'phone-layout: a template page keeps its price and main action in view on a phone',
    async run(page, { url, viewport }) {
      await page.goto(`${url}/template/e0000000-0000-4000-8000-000000000003`)
      await page.getByRole('heading', { level: 1 }).waitFor()
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).waitFor()
      const bar = page.getByRole('region', { name: 'Quick actions' })
      if (viewport === 'desktop') {
        expect((await bar.count()) === 0, 'a desktop shows no sticky action bar')
        return
      }
      const action = bar.getByRole('button', { name: 'Purchase & Download' })
      await action.waitFor()
      const box = await action.boundingBox()
      const { width, height } = page.viewportSize()
      expect(
        box && box.y >= 0 && box.y + box.height <= height && box.x >= 0 && box.x + box.width <= width,
        `the sticky Purchase & Download is at ${JSON.stringify(box)} in a ${width}x${height} window`,
      )
      expect(await page.evaluate(() => window.scrollY === 0), 'the page was not scrolled')
      await expectNoSidewaysPan(page, 'the template page')
      // It is the same action: a guest is taken to the e-mail field the card asks for.
      await action.click()
      await page.getByText('Please enter your email.').first().waitFor()
      await page.waitForFunction(() => document.activeElement?.id === 'buyer-email')
      // The toast it raises does not cover the bar (toasts come from the top on a phone).
      const toastBox = await page.locator('[data-sonner-toast]').filter({ hasText: 'Please enter your email.' }).boundingBox()
      const barBox = await bar.boundingBox()
      expect(
        toastBox && barBox && toastBox.y + toastBox.height <= barBox.y,
        `the toast at ${JSON.stringify(toastBox)} overlaps the sticky bar at ${JSON.stringify(barBox)}`,
      )
    },
  },
]
