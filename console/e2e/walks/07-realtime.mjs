// Realtime and functions: live counts, a table's changes published, a tail
// that shows a row inserted through the SQL editor's API, and a function
// call in the invocations.
import { anonKey, consoleApi, expect, expectNoSidewaysPan, openSection, screenshot, signIn, toast, unique, waitUntil } from '../lib.mjs'

export const walks = [
  {
    name: 'realtime',
    async run(page, ctx) {
      await signIn(page, ctx)
      await openSection(page, ctx, 'Realtime & functions')
      await page.getByLabel(/^Sockets: \d+$/).waitFor()
      await page.getByLabel(/^Channels: \d+$/).waitFor()

      // Publish categories' changes.
      await page.getByLabel('Table to publish').selectOption('public.categories')
      await page.getByRole('button', { name: 'Enable', exact: true }).click()
      await toast(page, 'Changes published')
      const published = page.getByRole('list', { name: 'Published tables' })
      await published.getByText('public.categories', { exact: true }).waitFor()

      // Tail them while a row is inserted outside the page.
      await page.getByLabel('Table to tail').selectOption('public.categories')
      await page.getByRole('button', { name: 'Tail changes' }).click()
      await page.getByRole('status').filter({ hasText: 'Tailing public.categories: waiting for changes.' }).waitFor()
      const slug = unique(`rt-${ctx.viewport}`).toLowerCase()
      const inserted = await consoleApi(page, ctx).post('/sql', {
        query: `insert into public.categories (name, slug) values ('Realtime E2E', '${slug}')`,
        read_only: false,
      })
      expect(inserted.status === 200, `the insert answered ${inserted.status} ${JSON.stringify(inserted.body)}`)
      const changes = page.getByRole('list', { name: 'Changes' })
      await changes.getByText(slug).waitFor()
      await changes.getByText('INSERT').first().waitFor()
      await expectNoSidewaysPan(page, 'the realtime section')

      // A function call shows up among the invocations.
      const key = await anonKey(page, ctx)
      const call = await fetch(`${ctx.url}/functions/v1/track-template-view`, {
        method: 'POST',
        headers: { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ template_id: 'e0000000-0000-4000-8000-000000000001' }),
      })
      await call.text()
      const invocations = page.getByRole('region', { name: 'Function invocations' })
      await invocations.getByText('/functions/v1/track-template-view').first().waitFor()
      const row = invocations.getByRole('row').filter({ hasText: '/functions/v1/track-template-view' }).first()
      await row.getByText(String(call.status), { exact: true }).waitFor()
      await row.getByText('POST', { exact: true }).waitFor()
      await screenshot(page, 'realtime')

      // Stop tailing and stop publishing again.
      await page.getByRole('button', { name: 'Stop' }).click()
      await published.getByRole('button', { name: 'Disable public.categories' }).click()
      await toast(page, 'Changes no longer published')
      await waitUntil(async () => (await published.getByText('public.categories', { exact: true }).count()) === 0 || (await page.getByText("No table's changes are published.").count()) === 1, 'categories to leave the published tables')
    },
  },
]
