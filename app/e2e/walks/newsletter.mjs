// The home page's newsletter form against the server's configured webhook
// (issue 15, "make the untestable testable"): plinth is started with
// PLINTH_NEWSLETTER_WEBHOOK_URL pointing at a local stand-in
// (../fake-newsletter-webhook.mjs, `ctx.newsletter`), which the browser
// reaches through the app's CSP and the stand-in's CORS answers. Spec
// section 7: the webhook first with {email, Name}; when it is not ok, the
// subscribe-to-newsletter function with {email, name}; section 8: the toasts.
import { expect, waitUntil } from '../lib.mjs'

const FAILED = 'Failed to subscribe. Please try again later.'

async function openForm(page, url) {
  await page.goto(`${url}/`)
  const form = page.getByRole('region', { name: 'Stay in the loop' })
  await form.getByRole('button', { name: 'Subscribe' }).waitFor()
  return form
}

async function subscribe(form, name, email) {
  await form.getByLabel('Name').fill(name)
  await form.getByLabel('Email').fill(email)
  await form.getByRole('button', { name: 'Subscribe' }).click()
}

async function toast(page, text) {
  await page.getByText(text, { exact: true }).first().waitFor()
}

export const walks = [
  {
    name: 'newsletter: the webhook answers ok: it gets {email, Name} and the form clears',
    async run(page, { url, viewport, newsletter }) {
      newsletter.reset()
      const email = `e2e-news-ok-${viewport}-${Date.now()}@example.com`
      const functionCalls = []
      page.on('request', (r) => r.url().includes('/functions/v1/subscribe-to-newsletter') && functionCalls.push(r.url()))
      const form = await openForm(page, url)
      await subscribe(form, 'Webhook Reader', email)
      await toast(page, 'Success!')
      await toast(page, "You've been subscribed to our newsletter.")
      expect(newsletter.received.length === 1, `the webhook got ${newsletter.received.length} POSTs`)
      const [post] = newsletter.received
      expect(
        JSON.stringify(post.body) === JSON.stringify({ email, Name: 'Webhook Reader' }),
        `the webhook got ${JSON.stringify(post.body)}`,
      )
      expect(post.contentType === 'application/json', `content type ${post.contentType}`)
      expect(post.origin === url, `origin ${post.origin}`)
      // A JSON POST from another origin is preflighted, as at a real webhook.
      expect(newsletter.preflights.length >= 1, 'no CORS preflight reached the webhook')
      expect((await form.getByLabel('Name').inputValue()) === '', 'the name was not cleared')
      expect((await form.getByLabel('Email').inputValue()) === '', 'the e-mail was not cleared')
      expect(functionCalls.length === 0, `the function was called although the webhook was ok: ${functionCalls}`)
      expect((await newsletter.subscribers(email)).length === 0, 'the function stored a subscriber the webhook took')
    },
  },
  {
    name: 'newsletter: the webhook answers 500: the subscribe-to-newsletter function stores the subscriber',
    async run(page, { url, viewport, newsletter }) {
      newsletter.reset()
      newsletter.answer(500)
      const email = `e2e-news-fallback-${viewport}-${Date.now()}@example.com`
      const form = await openForm(page, url)
      const fallback = page.waitForResponse((r) => r.url().endsWith('/functions/v1/subscribe-to-newsletter') && r.request().method() === 'POST')
      await subscribe(form, 'Fallback Reader', email)
      const answered = await fallback
      expect(answered.status() === 200, `the function answered ${answered.status()}`)
      expect(
        JSON.stringify(answered.request().postDataJSON()) === JSON.stringify({ email, name: 'Fallback Reader' }),
        `the function got ${answered.request().postData()}`,
      )
      await toast(page, 'Success!')
      expect(newsletter.received.length === 1, `the webhook got ${newsletter.received.length} POSTs`)
      const stored = await newsletter.subscribers(email)
      expect(
        stored.length === 1 && stored[0].email === email && stored[0].name === 'Fallback Reader',
        `stored subscribers: ${JSON.stringify(stored)}`,
      )
      expect((await form.getByLabel('Email').inputValue()) === '', 'the e-mail was not cleared')
    },
  },
  {
    name: 'newsletter: the webhook and the function both fail: the failure toast, fields kept',
    async run(page, { url, viewport, newsletter }) {
      newsletter.reset()
      newsletter.answer(500)
      const email = `e2e-news-fail-${viewport}-${Date.now()}@example.com`
      // Fault injection: the function is made to fail on the way (the real
      // one would store the subscriber), as an outage of the server would.
      let injected = 0
      await page.route('**/functions/v1/subscribe-to-newsletter', (route) => {
        if (route.request().method() !== 'POST') return route.continue()
        injected++
        return route.fulfill({ status: 500, json: { error: 'Failed to subscribe' } })
      })
      const form = await openForm(page, url)
      await subscribe(form, 'Unlucky Reader', email)
      await toast(page, FAILED)
      expect(newsletter.received.length === 1, `the webhook got ${newsletter.received.length} POSTs`)
      await waitUntil(() => injected === 1, 'the function call')
      expect(!(await page.getByText('Success!', { exact: true }).isVisible()), 'a success toast showed')
      expect((await form.getByLabel('Name').inputValue()) === 'Unlucky Reader', 'the name was cleared')
      expect((await form.getByLabel('Email').inputValue()) === email, 'the e-mail was cleared')
      expect((await newsletter.subscribers(email)).length === 0, 'a subscriber was stored')
    },
  },
]
