// Browser walks of checkout and downloads: a guest and a signed-in buyer pay
// for the paid demo template with the simulated provider (the e2e plinth has
// no Stripe key), land on the secure download page, find the order in the
// Library and open its download page; an unpaid link says so and opens after
// the payment; the Stripe path, whose Stripe.js cannot be reached from here,
// ends on its not-ready message. A free download keeps the marketplace tab: a
// stored file is saved as an attachment, a web link opens in a new tab.
import { readFile } from 'node:fs/promises'
import { apiAccount, apiVisitor, confirmSimulated, expect, mailboxMessages, signIn, startGuestPayment, waitUntil } from '../lib.mjs'

const PAID = 'e0000000-0000-4000-8000-000000000003' // Startup CRM, $19.00
const PASSWORD = 'a-long-password-1'

async function fillCard(page) {
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await page.getByLabel('Expiry (MM/YY)').fill('12/39')
  await page.getByLabel('CVC').fill('123')
}

/**
 * Waits for a request or response without ever leaving an unhandled
 * rejection behind (the walk may fail before awaiting it): resolves to it, or
 * to the error, which `settled` throws.
 */
function soon(promise) {
  return promise.catch((error) => ({ failed: error }))
}

async function settled(promise) {
  const value = await promise
  if (value && value.failed) throw value.failed
  return value
}

/**
 * The secure download page after a paid checkout: a paid 200 from
 * validate-download, and the demo template's file, whose URL answers 200.
 */
async function expectSecureDownload(page, validated) {
  const response = await settled(validated)
  expect(response.status() === 200, `validate-download answered ${response.status()}`)
  const body = await response.json()
  expect(body.isPaid === true && body.price_in_cents === 1900, `a paid order of $19.00: ${JSON.stringify(body)}`)
  const ready = page.getByRole('heading', { name: 'Your download is ready' })
  await ready.waitFor()
  expect(typeof body.downloadUrl === 'string' && body.downloadUrl.length > 0, `a download URL: ${JSON.stringify(body)}`)
  const link = page.getByRole('link', { name: 'Download File' })
  const href = await link.getAttribute('href')
  expect(href === body.downloadUrl, `Download File goes to ${href}`)
  const file = await page.request.get(new URL(href, page.url()).toString())
  expect(file.status() === 200, `the file answered ${file.status()}`)
  expect((await file.text()).includes('# Startup CRM'), 'the file is the template bought')
  return body
}

/** Pays on the checkout page with the simulated card form, then waits for the secure download page. */
async function payAndLand(page, url) {
  await page.getByRole('button', { name: 'Pay & Download' }).waitFor()
  await page.getByTestId('checkout-total').filter({ hasText: '$19.00' }).waitFor()
  await fillCard(page)
  const validated = soon(page.waitForResponse((r) => r.url().endsWith('/functions/v1/validate-download')))
  const receipt = soon(page.waitForRequest((r) => r.url().endsWith('/api/paid-download-confirmation')))
  await page.getByRole('button', { name: 'Pay & Download' }).click()
  await page.getByText('Payment successful!').waitFor()
  await page.waitForURL((u) => u.pathname.startsWith('/download-secure/') && u.searchParams.has('token'))
  const orderId = new URL(page.url()).pathname.split('/').pop()
  const body = await expectSecureDownload(page, validated)
  const sent = JSON.parse((await settled(receipt)).postData() ?? '{}')
  expect(sent.orderId === orderId && sent.email === body.buyer_email, `the receipt request: ${JSON.stringify(sent)}`)
  expect(page.url().startsWith(url), 'stayed in the app')
  return orderId
}

export const walks = [
  {
    name: 'orders: a guest buys a paid template and lands on the secure download page',
    async run(page, { url, viewport }) {
      const requests = []
      page.on('request', (r) => requests.push(r.url()))
      const email = `e2e-guest-${viewport}-${Date.now()}@example.com`
      await page.goto(`${url}/template/${PAID}`)
      await page.getByTestId('price').filter({ hasText: '$19.00' }).waitFor()
      await page.getByLabel('Email for your receipt and download').fill(email)
      const created = soon(page.waitForRequest((r) => r.url().endsWith('/functions/v1/create-payment-intent')))
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.waitForURL((u) => u.pathname === '/checkout' && u.searchParams.get('buyerEmail') === email)
      const payload = JSON.parse((await settled(created)).postData())
      expect(payload.templateId === PAID && payload.buyerEmail === email && !('buyerId' in payload), `the payment request: ${JSON.stringify(payload)}`)
      const orderId = await payAndLand(page, url)
      // Stripe's code stays out of a simulated checkout.
      expect(!requests.some((u) => u.includes('stripe')), 'no Stripe request on the simulated path')

      // A wrong token and a missing one.
      await page.goto(`${url}/download-secure/${orderId}?token=not-the-token`)
      await page.getByRole('heading', { name: 'Download Error' }).waitFor()
      await page.getByText('Invalid or expired download link.').waitFor()
      await page.goto(`${url}/download-secure/${orderId}`)
      await page.getByText('Missing order ID or token.').waitFor()
    },
  },
  {
    name: 'orders: a signed-in buyer pays, then finds the order in the Library',
    async run(page, { url, viewport }) {
      const email = `e2e-buyer-${viewport}-${Date.now()}@example.com`
      const buyer = await apiVisitor(url, email)
      await signIn(page, url, email, PASSWORD, `/template/${PAID}`)
      await page.waitForURL((u) => u.pathname === `/template/${PAID}`)
      await page.getByTestId('price').filter({ hasText: '$19.00' }).waitFor()
      expect((await page.getByLabel('Email for your receipt and download').count()) === 0, 'no e-mail field when signed in')
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.waitForURL((u) => u.pathname === '/checkout' && u.searchParams.get('buyerId') === buyer.id)
      const orderId = await payAndLand(page, url)

      // In-app navigation: a signed-in page load would restore the last path.
      if (viewport === 'phone') {
        await page.getByRole('button', { name: 'Open menu' }).click()
        await page.getByRole('dialog', { name: 'Menu' }).getByRole('link', { name: 'Dashboard' }).click()
        await page.getByRole('button', { name: 'Open dashboard menu' }).click()
        await page.getByRole('dialog', { name: 'Dashboard menu' }).getByRole('link', { name: 'Library' }).click()
      } else {
        await page.getByRole('button', { name: 'Account menu' }).click()
        await page.getByRole('menuitem', { name: 'Dashboard' }).click()
        await page.getByRole('complementary', { name: 'Dashboard' }).getByRole('link', { name: 'Library' }).click()
      }
      await page.waitForURL((u) => u.pathname === '/dashboard/library')
      const row = page.getByRole('list', { name: 'Your templates' }).getByRole('link', { name: /Startup CRM/ })
      await row.waitFor()
      expect((await row.count()) === 1, 'one order in the library')
      await row.click()
      await page.waitForURL((u) => u.pathname === `/download/${orderId}`)
      await page.getByRole('heading', { name: 'Your Download' }).waitFor()
      await page.getByText('Startup CRM').waitFor()
      // A paid order keeps no lasting link: its signed-in buyer is let in by session.
      const link = page.getByRole('link', { name: 'Download File' })
      await link.waitFor()
      const file = await page.request.get(new URL(await link.getAttribute('href'), page.url()).toString())
      expect(file.status() === 200, `the order's file answered ${file.status()}`)
      expect((await file.text()).includes('# Startup CRM'), "the order's file is the template bought")
      await page.getByRole('link', { name: 'Back to Marketplace' }).click()
      await page.waitForURL((u) => u.pathname === '/discover')
    },
  },
  {
    name: 'orders: a guest gets a free template by e-mail; its web link opens in a new tab and the page stays',
    async run(page, { url, viewport }) {
      const template = `${url}/template/e0000000-0000-4000-8000-000000000001`
      await page.goto(template)
      await page.getByRole('heading', { level: 1, name: 'Calm Weekly Planner' }).waitFor()
      await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
      const dialog = page.getByRole('dialog', { name: 'Get Your Free Template' })
      await dialog.getByRole('button', { name: 'Send Download Link' }).click()
      await dialog.getByText('Please enter your email.').waitFor()
      const email = `e2e-free-${viewport}-${Date.now()}@example.com`
      await dialog.getByRole('textbox').fill(email)
      const ordered = page.waitForResponse((r) => r.url().endsWith('/functions/v1/create-free-order'))
      // The demo template's file is a page of the site, not a stored file: a new tab (issue 15, item 16).
      const opened = page.context().waitForEvent('page')
      await dialog.getByRole('button', { name: 'Send Download Link' }).click()
      expect((await ordered).status() === 200, 'create-free-order answered 200')
      const tab = await opened
      await tab.waitForURL((u) => u.pathname === '/demo/files/planner.md')
      await tab.waitForLoadState()
      expect((await tab.content()).includes('Calm Weekly Planner'), 'the new tab shows the template file')
      expect(await tab.evaluate(() => window.opener === null), 'the new tab cannot reach back to the marketplace')
      expect(page.url() === template, `the marketplace tab stayed on the template page, not ${page.url()}`)
      await page.getByTestId('price-card').getByRole('link', { name: 'Open it again' }).waitFor()
      // The link was also e-mailed (the development mailbox keeps it).
      const mail = await mailboxMessages(url, email)
      expect(JSON.stringify(mail).includes('/download-secure/'), `a mail with the secure link: ${JSON.stringify(mail).slice(0, 200)}`)
    },
  },
  {
    name: 'orders: a free stored template file downloads as an attachment and the page stays',
    async run(page, { url, viewport }) {
      // A creator stores a file and submits a free template; the admin approves it.
      const stamp = Date.now()
      const creator = await apiVisitor(url, `e2e-file-creator-${viewport}-${stamp}@example.com`)
      const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
      const object = `${creator.id}/files/${stamp}-e2e/Focus kit.md`
      const stored = await fetch(`${url}/storage/v1/object/templates/${object.split('/').map(encodeURIComponent).join('/')}`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${creator.token}`, 'content-type': 'text/markdown' },
        body: '# Focus kit\n\nA stored template file.\n',
      })
      expect(stored.ok, `the file is stored: ${stored.status} ${await stored.text()}`)
      const [productivity] = await creator.get('categories?slug=eq.productivity&select=id')
      const title = `Stored file ${viewport} ${stamp % 1_000_000}`
      await creator.rest('POST', 'templates_pending_approval', {
        creator_id: creator.id,
        title,
        description: 'A free template whose file is in storage.',
        about_template: 'A focus kit.',
        category_id: productivity.id,
        price: 0,
        price_in_cents: 0,
        tags: ['focus'],
        template_file_url: `templates/${object}`,
        status: 'Pending Approval',
      })
      const [pending] = await creator.get(`templates_pending_approval?title=eq.${encodeURIComponent(title)}&select=id`)
      const admin = await apiAccount(url, 'admin@demo.plinth.dev')
      await admin.rest('POST', 'rpc/admin_approve_template', { pending_template_id: pending.id })
      const [published] = await creator.get(`templates?title=eq.${encodeURIComponent(title)}&select=id`)
      expect(published?.id, 'the template is published')

      // A signed-in visitor downloads it: the file arrives as an attachment, no tab opens, the page stays.
      const email = `e2e-file-buyer-${viewport}-${stamp}@example.com`
      await apiVisitor(url, email)
      const template = `/template/${published.id}`
      await signIn(page, url, email, PASSWORD, template)
      await page.waitForURL((u) => u.pathname === template)
      await page.getByRole('heading', { level: 1, name: title }).waitFor()
      const tabs = []
      page.context().on('page', (p) => tabs.push(p))
      const downloaded = page.waitForEvent('download')
      await page.getByTestId('price-card').getByRole('button', { name: 'Download Free' }).click()
      const download = await downloaded
      expect(download.suggestedFilename() === 'Focus kit.md', `saved as ${download.suggestedFilename()}`)
      expect(new URL(download.url()).pathname.startsWith('/storage/v1/object/sign/templates/'), `a signed storage URL: ${download.url()}`)
      const path = await download.path()
      expect((await readFile(path, 'utf8')).includes('# Focus kit'), 'the saved file is the stored one')
      await page.getByText('Your download has started.').first().waitFor()
      expect(new URL(page.url()).pathname === template, `the page stayed on the template, not ${page.url()}`)
      await page.getByRole('heading', { level: 1, name: title }).waitFor()
      expect(tabs.length === 0, `no tab opened for a stored file (${tabs.length})`)
    },
  },
  {
    name: 'orders: an unpaid download link says so, and opens after the payment on Retry',
    async run(page, { url, viewport }) {
      const intent = await startGuestPayment(url, PAID, `e2e-unpaid-${viewport}-${Date.now()}@example.com`)
      await page.goto(`${url}/download-secure/${intent.orderId}?token=${encodeURIComponent(intent.downloadToken)}`)
      await page.getByText('Payment not completed. Please complete your purchase first.').waitFor()
      await page.getByText(/wait a moment and try again/).waitFor()

      await confirmSimulated(url, intent)
      const validated = soon(page.waitForResponse((r) => r.url().endsWith('/functions/v1/validate-download')))
      await page.getByRole('button', { name: 'Retry' }).click()
      await expectSecureDownload(page, validated)
    },
  },
  {
    name: 'orders: the Stripe path loads Stripe lazily and says when it is not ready',
    async run(page, { url }) {
      // This machine cannot reach Stripe: the server is made to answer as a
      // Stripe-backed one, and Stripe.js fails to load at once.
      const requests = []
      page.on('request', (r) => requests.push(r.url()))
      await page.route('**/_/app-config.json', async (route) => {
        const response = await route.fetch()
        await route.fulfill({ response, json: { ...(await response.json()), stripePublishableKey: 'pk_test_e2e' } })
      })
      await page.route('**/functions/v1/create-payment-intent', (route) =>
        route.fulfill({
          json: { clientSecret: 'pi_e2e_secret_e2e', orderId: '00000000-0000-4000-8000-0000000000e2', downloadToken: 'tok', provider: 'stripe', amount: 1900, currency: 'usd' },
        }),
      )
      await page.route('https://js.stripe.com/**', (route) => route.abort())
      await page.goto(`${url}/checkout?templateId=${PAID}&buyerEmail=stripe%40example.com`)
      await page.getByText('Stripe is not ready. Please try again.').waitFor()
      await waitUntil(() => requests.some((u) => u.includes('js.stripe.com')), 'the attempt to load Stripe.js')
      expect((await page.getByLabel('Card number').count()) === 0, 'no simulated card form on the Stripe path')
      await page.getByRole('button', { name: 'Try Again' }).waitFor()
    },
  },
]
