// SQL editor: a query's result grid with column types, an error with its
// code and a caret at its position, read-only mode refusing DDL, history.
import { BASE, expect, expectNoSidewaysPan, openSection, screenshot, signIn, unique, waitForText } from '../lib.mjs'

export const walks = [
  {
    name: 'sql',
    expectedFailures: [{ status: 400, path: `${BASE}/api/sql` }],
    async run(page, ctx) {
      await signIn(page, ctx)
      await openSection(page, ctx, 'SQL editor')
      const editor = page.getByLabel('Query', { exact: true })
      const marker = unique('q')

      // A query, run with Ctrl+Enter.
      await editor.fill(`select 1 as one, '${marker}'::text as two, null::int as three\nunion all select 2, 'b', 3`)
      await editor.press('Control+Enter')
      const result = page.getByRole('region', { name: 'Result 1: SELECT', exact: true })
      await result.waitFor()
      const headers = await result.locator('thead th').allTextContents()
      expect(headers.join('|') === 'oneint4|twotext|threeint4', `the result's columns: ${headers.join('|')}`)
      await page.getByText('2 rows', { exact: true }).waitFor()
      await page.getByRole('status').filter({ hasText: /1 result in [\d.]+ ms/ }).waitFor()
      await result.getByText(marker).waitFor()
      await expectNoSidewaysPan(page, 'the SQL result')

      // An error at a position on the second line.
      await editor.fill('select *\n  from no_such_table_here')
      await page.getByRole('button', { name: 'Run' }).click()
      const alert = page.getByRole('alert').filter({ hasText: '42P01' })
      await alert.waitFor()
      await waitForText(alert, 'no_such_table_here', 'the error')
      await waitForText(alert, 'At line 2, column 8', 'the error position')
      const caret = await alert.getByTestId('sql-error-caret').textContent()
      expect(caret === '       ^', `the caret line: ${JSON.stringify(caret)}`)
      await screenshot(page, 'sql')

      // Read-only mode refuses DDL.
      await page.getByLabel('Read-only').check()
      await editor.fill('create table console_e2e_refused (id int)')
      await page.getByRole('button', { name: 'Run' }).click()
      await page.getByRole('alert').filter({ hasText: '25006' }).waitFor()
      await page.getByLabel('Read-only').uncheck()

      // History: newest first; a click loads the query back.
      const history = page.getByRole('region', { name: 'History' })
      const entry = history.getByRole('button', { name: new RegExp(`Load query: select 1 as one, '${marker}'`) })
      await entry.waitFor()
      await history.getByRole('button', { name: /Load query: create table console_e2e_refused/ }).first().waitFor()
      await entry.click()
      expect((await editor.inputValue()).includes(marker), 'the history entry is loaded into the editor')
      await expectNoSidewaysPan(page, 'the SQL editor')
    },
  },
]
