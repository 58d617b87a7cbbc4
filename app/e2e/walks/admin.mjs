// Browser walks of the admin screens: the review queue updates live while a
// creator (outside the browser) submits, and the admin approves from the list
// and rejects from the review page; a non-admin is turned away.
import { apiVisitor, expect, signIn, waitForText, waitUntil } from '../lib.mjs'

const ADMIN = 'admin@demo.plinth.dev'
const REASON = 'Please add setup instructions.'

export const walks = [
  {
    name: 'the admin review list updates live when a template is submitted; approve and reject',
    async run(page, { url, viewport }) {
      const frames = []
      page.on('websocket', (ws) => {
        if (ws.url().includes('/realtime/v1/websocket')) ws.on('framereceived', (f) => frames.push(String(f.payload)))
      })
      await signIn(page, url, ADMIN, 'demo-password', '/dashboard/admin')
      await page.waitForURL(/\/dashboard\/admin$/)
      await page.getByRole('heading', { name: 'Admin Panel' }).waitFor()
      await waitUntil(
        () => frames.some((f) => f.includes('"phx_reply"') && f.includes('realtime:admin-review-queue:') && f.includes('"ok"')),
        'the review queue channel to be joined',
      )
      const counter = page.getByTestId('counter-Pending Review')
      await page.getByTestId('pending-row').first().or(page.getByText('No templates pending review')).waitFor()
      const before = Number((await counter.textContent()).trim())
      await page.evaluate(() => (window.__sameDocument = true))

      const creator = await apiVisitor(url, `e2e-creator-${viewport}-${Date.now()}@example.com`)
      const [education] = await creator.get('categories?slug=eq.education&select=id')
      const stamp = Date.now() % 1_000_000
      const submission = (title) => ({
        creator_id: creator.id,
        title,
        description: 'Submitted while the admin watches.',
        about_template: 'A planner for **exams**.',
        category_id: education.id,
        price: 0,
        price_in_cents: 0,
        tags: ['live'],
        // Something to download: approval refuses a template without (issue 44, item 3).
        template_url: 'https://example.com/templates/live',
        status: 'Pending Approval',
      })

      // A submission appears in the open list, over the socket, without a reload.
      const first = `Live ${viewport} ${stamp}`
      await creator.rest('POST', 'templates_pending_approval', submission(first))
      const row = page.getByTestId('pending-row').filter({ hasText: first })
      await row.waitFor()
      await waitForText(counter, String(before + 1), 'the Pending Review counter')
      expect(
        frames.some((f) => f.includes('"postgres_changes"') && f.includes('"INSERT"') && f.includes(first)),
        'the submission arrived over the socket',
      )
      expect(await page.evaluate(() => window.__sameDocument === true), 'the page was not reloaded')

      // Approve it from the list: it leaves the queue and is published.
      const [{ id: firstId }] = await creator.get(`templates_pending_approval?title=eq.${encodeURIComponent(first)}&select=id`)
      await page.getByLabel(`Status of ${first}`).selectOption('Active')
      await page.getByText('Template approved and published successfully').first().waitFor()
      await row.waitFor({ state: 'detached' })
      const published = await creator.get(`templates?id=eq.${firstId}&select=title,is_published,user_id`)
      expect(published.length === 1 && published[0].is_published && published[0].user_id === creator.id, `published: ${JSON.stringify(published)}`)

      // A second one, reviewed on its own page and rejected with a reason.
      const second = `Review ${viewport} ${stamp}`
      await creator.rest('POST', 'templates_pending_approval', submission(second))
      await page.getByRole('link', { name: `Review ${second}` }).click()
      await page.waitForURL(/\/dashboard\/admin\/template\/[0-9a-f-]+\?returnTo=%2Fdashboard%2Fadmin$/)
      await page.getByRole('heading', { level: 1, name: second }).waitFor()
      await page.getByText('exams', { exact: true }).waitFor()
      await page.getByRole('button', { name: 'Reject Template' }).click()
      const dialog = page.getByRole('dialog', { name: `Reject "${second}"` })
      await dialog.getByLabel('Rejection reason').fill(REASON)
      await dialog.getByRole('button', { name: 'Reject Template' }).click()
      await page.waitForURL(/\/dashboard\/admin$/)
      await page.getByText('Template rejected successfully').first().waitFor()
      await page.getByTestId('pending-row').filter({ hasText: second }).waitFor({ state: 'detached' })
      const rejected = await creator.get(`templates_rejected?creator_id=eq.${creator.id}&select=title,rejection_comment`)
      expect(
        rejected.some((r) => r.title === second && r.rejection_comment === REASON),
        `the creator sees the rejection: ${JSON.stringify(rejected)}`,
      )
      const stillPending = await creator.get(`templates_pending_approval?creator_id=eq.${creator.id}&select=id`)
      expect(stillPending.length === 0, 'nothing of the creator is left pending')
    },
  },
  {
    name: 'a signed-in non-admin is denied the admin panel',
    async run(page, { url }) {
      await signIn(page, url, 'maya@demo.plinth.dev', 'demo-password', '/dashboard/admin')
      await page.waitForURL(/\/dashboard\/admin$/)
      await page.getByText('Access Denied').waitFor()
      await page.getByText("You don't have permission to access this page.").waitFor()
      expect((await page.getByTestId('pending-row').count()) === 0, 'no submissions are shown')
    },
  },
]
