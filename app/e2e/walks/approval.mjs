// Issue 44, item 3: a template with nothing to download cannot be approved.
// A creator (outside the browser) submits one with no file and no link and
// one with a stored file. The demo admin finds Approve disabled with the
// reason on the review page and in the queue's status list; the RPC itself
// answers 400 with the same message; the one with a file is approved from its
// page. Last, the server's own refusal reaches the screen: the admin opens a
// submission that has a link, the link is taken away behind the page's back,
// and Approve shows the server's message.
import { apiAccount, apiVisitor, checkA11y, expect, expectNoSidewaysPan, signIn, submitForReview, waitUntil } from '../lib.mjs'

const ADMIN = 'admin@demo.plinth.dev'
const NO_DOWNLOAD = 'This template has no file or link to download; ask the creator to add one'

export const walks = [
  {
    name: 'approval: a template without a file or link is refused, one with a file is approved',
    async run(page, { url, viewport }) {
      const stamp = Date.now()
      const short = `${viewport.slice(0, 1)}${(stamp % 1_000_000).toString(36)}`
      const creator = await apiVisitor(url, `e2e-approval-${viewport}-${stamp}@example.com`)
      const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
      const object = `${creator.id}/files/${stamp}-e2e/kit.md`
      const stored = await fetch(`${url}/storage/v1/object/templates/${object.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${creator.token}`, 'content-type': 'text/markdown' },
        body: '# Kit\n\nA stored template file.\n',
      })
      expect(stored.ok, `the file is stored: ${stored.status} ${await stored.text()}`)
      const bareTitle = `No file ${short}`
      const fileTitle = `With file ${short}`
      const linkTitle = `With link ${short}`
      const bare = await submitForReview(creator, bareTitle)
      const withFile = await submitForReview(creator, fileTitle, { template_file_url: `templates/${object}` })
      const withLink = await submitForReview(creator, linkTitle, { template_url: 'https://example.com/templates/linked' })

      // The RPC itself refuses the bare one: a 400 with the message, and nothing is published.
      const admin = await apiAccount(url, ADMIN)
      const refused = await fetch(`${url}/rest/v1/rpc/admin_approve_template`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ pending_template_id: bare }),
      })
      const refusal = await refused.json()
      expect(refused.status === 400, `the RPC answered ${refused.status} ${JSON.stringify(refusal)}`)
      expect(refusal.message === NO_DOWNLOAD && refusal.code === 'P0001', `the refusal: ${JSON.stringify(refusal)}`)
      expect((await creator.get(`templates?id=eq.${bare}&select=id`)).length === 0, 'the bare template was not published')
      expect((await admin.get(`templates_pending_approval?id=eq.${bare}&select=status`))[0]?.status === 'Pending Approval', 'it is still pending')

      // The queue: Approve is offered disabled for the bare one, with the reason in view.
      await signIn(page, url, ADMIN, 'demo-password', '/dashboard/admin')
      await page.waitForURL(/\/dashboard\/admin$/)
      const bareRow = page.getByTestId('pending-row').filter({ hasText: bareTitle })
      await bareRow.waitFor()
      const status = page.getByLabel(`Status of ${bareTitle}`)
      expect(await status.locator('option[value="Active"]').isDisabled(), 'Approve is disabled in the status list')
      await bareRow.getByTestId('no-download').filter({ hasText: NO_DOWNLOAD }).waitFor()
      expect(await bareRow.getByTestId('no-download').isVisible(), 'the reason is in view')
      expect(!(await page.getByLabel(`Status of ${fileTitle}`).locator('option[value="Active"]').isDisabled()), 'Approve is offered for the one with a file')
      await expectNoSidewaysPan(page, 'the admin queue')

      // Its review page: Approve disabled, the reason beside it.
      await page.getByRole('link', { name: `Review ${bareTitle}` }).click()
      await page.getByRole('heading', { level: 1, name: bareTitle }).waitFor()
      const approve = page.getByRole('button', { name: 'Approve Template' })
      expect(await approve.isDisabled(), 'Approve Template is disabled')
      await page.getByText(NO_DOWNLOAD).waitFor()
      await page.getByText('No template file was uploaded.').waitFor()
      await checkA11y(page, { viewport, who: 'admin', state: 'approval refused' })
      await expectNoSidewaysPan(page, 'the review page of a template without a file')

      // The server refuses what the page thought approvable: the link goes away behind its back.
      await page.goto(`${url}/dashboard/admin/template/${withLink}`)
      await page.getByRole('heading', { level: 1, name: linkTitle }).waitFor()
      await page.getByText('Delivered as a link:').waitFor()
      // The page may read the row again at any moment (a refetch): it keeps
      // seeing the link it read first, as a page read just before the change would.
      await page.route('**/rest/v1/templates_pending_approval?**', async (route) => {
        if (route.request().method() !== 'GET') return route.fallback()
        const response = await route.fetch()
        const body = await response.json()
        const stale = (row) => (row?.id === withLink ? { ...row, template_url: 'https://example.com/templates/linked' } : row)
        await route.fulfill({ response, json: Array.isArray(body) ? body.map(stale) : stale(body) })
      })
      await admin.rest('PATCH', `templates_pending_approval?id=eq.${withLink}`, { template_url: null })
      expect((await admin.get(`templates_pending_approval?id=eq.${withLink}&select=template_url`))[0]?.template_url === null, 'the link is gone')
      await approve.click()
      await page.getByRole('alert').filter({ hasText: NO_DOWNLOAD }).waitFor()
      expect(page.url().includes(`/dashboard/admin/template/${withLink}`), 'the admin stays on the submission')
      expect((await creator.get(`templates?id=eq.${withLink}&select=id`)).length === 0, 'the link-less template was not published')
      await page.unroute('**/rest/v1/templates_pending_approval?**')

      // The one with a file is approved from its page and published.
      await page.goto(`${url}/dashboard/admin/template/${withFile}?returnTo=%2Fdashboard%2Fadmin`)
      await page.getByRole('heading', { level: 1, name: fileTitle }).waitFor()
      await page.getByRole('link', { name: 'Download template file' }).waitFor()
      await approve.click()
      await page.getByText('Template approved and published successfully').first().waitFor()
      await page.waitForURL(/\/dashboard\/admin$/)
      await waitUntil(async () => (await creator.get(`templates?id=eq.${withFile}&select=is_published`))[0]?.is_published === true, 'the template with a file to be published')

      // Tidy: the refused ones leave the queue for other walks.
      for (const id of [bare, withLink]) await admin.rest('DELETE', `templates_pending_approval?id=eq.${id}`)
    },
  },
]
