// Browser walk of a creator's live review notifications: a fresh creator,
// signed in and looking at their pending templates, hears an admin's
// approval and rejection (the admin in a browser context of their own, in
// the admin UI) as toasts, and the pending list follows, without a reload.
// The notifications come over the creator's private channel
// `creator:{user id}` (migrations/20261125000100_template_review_notifications.sql,
// policies/0401_realtime_messages.sql), which nobody else may join.
import { apiAccount, apiVisitor, expect, signIn, submitForReview, waitUntil } from '../lib.mjs'

const ADMIN = 'admin@demo.plinth.dev'
const PASSWORD = 'a-long-password-1'
const REASON = 'Please add a preview image.'

/**
 * The join reply of the private channel `topic` for the holder of `token`,
 * over a websocket of its own opened in `page` (the server's answer as the
 * realtime client would get it): `{ status, response }`.
 */
async function privateJoinReply(page, url, token, topic) {
  const anonKey = (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
  const socketUrl = `${url.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${encodeURIComponent(anonKey)}&vsn=1.0.0`
  return page.evaluate(
    ({ socketUrl, token, topic }) =>
      new Promise((resolve, reject) => {
        const ws = new WebSocket(socketUrl)
        const timer = setTimeout(() => {
          ws.close()
          reject(new Error(`no join reply for ${topic}`))
        }, 10_000)
        ws.onopen = () =>
          ws.send(
            JSON.stringify({
              topic: `realtime:${topic}`,
              event: 'phx_join',
              payload: {
                config: { broadcast: { ack: false, self: false }, presence: { key: '', enabled: false }, postgres_changes: [], private: true },
                access_token: token,
              },
              ref: '1',
              join_ref: '1',
            }),
          )
        ws.onmessage = (message) => {
          const frame = JSON.parse(message.data)
          if (frame.event === 'phx_reply' && frame.ref === '1') {
            clearTimeout(timer)
            ws.close()
            resolve(frame.payload)
          }
        }
        ws.onerror = () => {
          clearTimeout(timer)
          reject(new Error('the websocket failed'))
        }
      }),
    { socketUrl, token, topic },
  )
}

export const walks = [
  {
    name: 'review notifications: a creator sees the approval and the rejection of their templates live',
    async run(page, { url, viewport }) {
      // The creator and two submissions, made through the API.
      const email = `e2e-notify-${viewport}-${Date.now()}@example.com`
      const creator = await apiVisitor(url, email)
      const stamp = Date.now().toString(36)
      const approved = `Notify A ${viewport.slice(0, 1)} ${stamp}`
      const rejected = `Notify R ${viewport.slice(0, 1)} ${stamp}`
      // Something to download: approval refuses a template without (issue 44, item 3).
      for (const title of [approved, rejected]) await submitForReview(creator, title, { template_url: 'https://example.com/templates/walk' })
      const topic = `creator:${creator.id}`

      // Nobody but the creator may join the creator's channel.
      const other = await apiAccount(url, 'maya@demo.plinth.dev')
      const refused = await privateJoinReply(page, url, other.token, topic)
      expect(
        refused.status === 'error' && JSON.stringify(refused.response).includes('You do not have permissions to read from this Channel topic'),
        `another user's join of ${topic}: ${JSON.stringify(refused)}`,
      )

      // The creator signs in on their pending templates and joins their channel.
      const frames = []
      page.on('websocket', (ws) => {
        if (ws.url().includes('/realtime/v1/websocket')) ws.on('framereceived', (f) => frames.push(String(f.payload)))
      })
      await signIn(page, url, email, PASSWORD, '/dashboard/templates?tab=pending')
      await page.waitForURL((u) => u.pathname === '/dashboard/templates' && u.searchParams.get('tab') === 'pending')
      const approvedCard = page.getByRole('article', { name: approved })
      const rejectedCard = page.getByRole('article', { name: rejected })
      await approvedCard.waitFor()
      await rejectedCard.waitFor()
      await waitUntil(
        () => frames.some((f) => f.includes('"phx_reply"') && f.includes(`"realtime:${topic}"`) && f.includes('"ok"')),
        `the channel ${topic} to be joined`,
      )
      await page.evaluate(() => (window.__sameDocument = true))

      // The admin, in a browser of their own.
      const browser = page.context().browser()
      const adminContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' })
      const adminErrors = []
      try {
        const admin = await adminContext.newPage()
        admin.on('pageerror', (e) => adminErrors.push(e.message))
        await signIn(admin, url, ADMIN, 'demo-password', '/dashboard/admin')
        await admin.waitForURL(/\/dashboard\/admin$/)
        await admin.getByRole('heading', { name: 'Admin Panel' }).waitFor()

        // Approval from the list: the creator's page shows it at once.
        await admin.getByLabel(`Status of ${approved}`).selectOption('Active')
        await admin.getByText('Template approved and published successfully').first().waitFor()
        const approval = page.locator('[data-sonner-toast]').filter({ hasText: 'Template approved' })
        await approval.getByText(`"${approved}" has been approved and is now published.`).waitFor()
        expect((await approval.getAttribute('data-type')) === 'success', 'the approval is a success toast')
        await approvedCard.waitFor({ state: 'detached' })
        await rejectedCard.waitFor()
        expect(
          frames.some((f) => f.includes('"template_reviewed"') && f.includes(approved)),
          'the approval arrived over the socket',
        )

        // Rejection with a reason from the review page.
        await admin.getByRole('link', { name: `Review ${rejected}` }).click()
        await admin.getByRole('heading', { level: 1, name: rejected }).waitFor()
        await admin.getByRole('button', { name: 'Reject Template' }).click()
        const dialog = admin.getByRole('dialog', { name: `Reject "${rejected}"` })
        await dialog.getByLabel('Rejection reason').fill(REASON)
        await dialog.getByRole('button', { name: 'Reject Template' }).click()
        await admin.getByText('Template rejected successfully').first().waitFor()
        const rejection = page.locator('[data-sonner-toast]').filter({ hasText: 'Template rejected' })
        await rejection.getByText(`"${rejected}" was rejected: ${REASON}`).waitFor()
        await rejectedCard.waitFor({ state: 'detached' })
        expect(adminErrors.length === 0, `admin page errors: ${adminErrors.join('; ')}`)
      } finally {
        await adminContext.close()
      }

      expect(await page.evaluate(() => window.__sameDocument === true), 'the creator page was not reloaded')
      const published = await creator.get(`templates?user_id=eq.${creator.id}&select=title`)
      expect(published.length === 1 && published[0].title === approved, `published: ${JSON.stringify(published)}`)
      const filed = await creator.get(`templates_rejected?creator_id=eq.${creator.id}&select=title,rejection_comment`)
      expect(filed.length === 1 && filed[0].title === rejected && filed[0].rejection_comment === REASON, `rejected: ${JSON.stringify(filed)}`)
    },
  },
]
