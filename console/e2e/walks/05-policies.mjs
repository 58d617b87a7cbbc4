// Policies: row-level security is on for templates, its policies are shown,
// and the matrix says what anon may select; RLS turned off (confirmed) and
// on again on categories.
import { expect, expectNoSidewaysPan, openSection, screenshot, signIn, toast } from '../lib.mjs'

export const walks = [
  {
    name: 'policies',
    async run(page, ctx) {
      await signIn(page, ctx)
      await openSection(page, ctx, 'Policies')
      await page.getByLabel('Table', { exact: true }).selectOption('templates')
      const card = page.getByRole('region', { name: 'public.templates', exact: true })
      await card.waitFor()
      const rls = card.getByRole('switch', { name: 'Row-level security' })
      expect((await rls.getAttribute('aria-checked')) === 'true', 'RLS is on for templates')
      await card.getByText('USING').first().waitFor()

      const matrix = card.getByRole('region', { name: 'Who can do what on public.templates' })
      const anon = matrix.getByRole('row', { name: /^anon/ })
      await anon.waitFor()
      const headers = await matrix.locator('thead th').allTextContents()
      const select = headers.findIndex((h) => h.toLowerCase() === 'select')
      expect(select > 0, `a select column: ${headers.join('|')}`)
      const cell = anon.locator('td').nth(select - 1)
      const access = await cell.getAttribute('data-access')
      expect(access === 'policy' || access === 'all', `anon may select templates (saw ${access}: ${await cell.textContent()})`)
      expect((await cell.textContent()).includes(access), 'the access is said in words')
      const insert = await anon.locator('td').nth(headers.findIndex((h) => h.toLowerCase() === 'insert') - 1).getAttribute('data-access')
      expect(insert === 'none', `anon may not insert templates (saw ${insert})`)
      await expectNoSidewaysPan(page, 'the policies of templates')
      await screenshot(page, 'policies')

      // Off (confirmed) and on again, on categories.
      await page.getByLabel('Table', { exact: true }).selectOption('categories')
      const categories = page.getByRole('region', { name: 'public.categories', exact: true })
      const toggle = categories.getByRole('switch', { name: 'Row-level security' })
      await toggle.waitFor()
      expect((await toggle.getAttribute('aria-checked')) === 'true', 'RLS is on for categories')
      await toggle.click()
      await page.getByRole('alertdialog').getByRole('button', { name: 'Turn off' }).click()
      await toast(page, 'Row-level security off')
      await categories.locator('[role=switch][aria-checked=false]').waitFor()
      await categories.getByRole('row', { name: /^anon/ }).locator('td[data-access=all]').first().waitFor()
      await toggle.click()
      await toast(page, 'Row-level security on')
      await categories.locator('[role=switch][aria-checked=true]').waitFor()
    },
  },
]
