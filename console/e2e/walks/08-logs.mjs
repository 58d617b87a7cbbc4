// Logs and health: the health cards, a request's line in the live tail,
// the filters (service, status) and pause; the dev mailbox.
import { anonKey, expect, expectNoSidewaysPan, openSection, screenshot, signIn, unique, waitUntil } from '../lib.mjs'

export const walks = [
  {
    name: 'logs',
    async run(page, ctx) {
      await signIn(page, ctx)
      const key = await anonKey(page, ctx)
      const rest = (path) => fetch(`${ctx.url}/rest/v1/${path}`, { headers: { apikey: key, authorization: `Bearer ${key}` } }).then((r) => r.text())
      await openSection(page, ctx, 'Logs & health')
      await page.getByRole('heading', { name: 'Database', exact: true }).waitFor()
      await page.getByText('OK', { exact: true }).waitFor()
      await page.getByRole('region', { name: 'Requests per service' }).waitFor()
      // The node that answers (behind a balancer, whose book this is).
      await page.getByText(/^node .+:\d+ · pid \d+$/).waitFor()

      const tail = page.getByRole('region', { name: 'Log entries' })
      const live = page.getByRole('status').filter({ hasText: /^Live\./ })
      await live.waitFor()
      // A request made now shows up as a line of the tail.
      const marker = unique('logs').replace(/-/g, '_')
      await rest(`categories?select=id&slug=eq.${marker}`)
      await tail.getByText(/GET \/rest\/v1\/categories.* 200/).first().waitFor()
      await expectNoSidewaysPan(page, 'the logs section')
      await screenshot(page, 'logs', ctx.viewport === 'phone' ? page.getByRole('heading', { name: 'Log tail' }) : undefined)

      // Service filter: only rest lines.
      await page.getByLabel('Service', { exact: true }).selectOption('rest')
      await live.waitFor()
      await rest('categories?select=id&limit=1')
      await tail.getByText(/GET \/rest\/v1\/categories/).first().waitFor()
      await waitUntil(async () => {
        const services = await tail.locator('li').evaluateAll((lis) => lis.map((li) => li.dataset.service))
        return services.length > 0 && services.every((s) => s === 'rest')
      }, 'only rest entries')

      // Status filter: only 4xx lines.
      await page.getByLabel('Status', { exact: true }).selectOption('4xx')
      await live.waitFor()
      await rest(`${marker}?select=id`)
      await tail.getByText(new RegExp(`GET /rest/v1/${marker}.* 4\\d\\d`)).first().waitFor()
      await waitUntil(async () => {
        const lines = await tail.locator('li').allTextContents()
        return lines.length > 0 && lines.every((l) => / 4\d\d/.test(l))
      }, 'only 4xx entries')

      // Pause: nothing new arrives; resume brings it.
      await page.getByRole('button', { name: 'Pause' }).click()
      await page.getByRole('status').filter({ hasText: /^Paused\./ }).waitFor()
      const paused = unique('paused').replace(/-/g, '_')
      await rest(`${paused}?select=id`)
      await page.waitForTimeout(1000)
      expect((await tail.getByText(paused).count()) === 0, 'a paused tail shows nothing new')
      await page.getByRole('button', { name: 'Resume' }).click()
      await tail.getByText(paused).first().waitFor()
      await page.getByLabel('Status', { exact: true }).selectOption('')
      await page.getByLabel('Service', { exact: true }).selectOption('')

      // The dev mailbox: a list, or it says it is empty.
      const mailbox = page.getByRole('region', { name: 'Dev mailbox' })
      await mailbox.getByText(/The dev mailbox is empty\.|^to /).or(mailbox.getByRole('list', { name: 'Messages' })).first().waitFor()
      const messages = mailbox.getByRole('list', { name: 'Messages' })
      if (await messages.count()) {
        await messages.locator('summary').first().click()
        await messages.locator('details[open] pre').first().waitFor()
      }
    },
  },
]
