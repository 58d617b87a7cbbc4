// Browser walks of the checkout's payment failures (issue 15, "make the
// untestable testable"): every failure text of the spec's checkout (section
// 8) on screen, at both viewports.
// - Declines are real: the e2e plinth's simulated provider declines Stripe's
//   test cards (4000 0000 0000 0002 / 9995 / 0119) with Stripe's 402 card
//   error, and the buyer then pays with 4242 4242 4242 4242 on the same page.
// - The other texts need a server or a network that fails: those walks inject
//   the fault on the network with page.route (an aborted request, a 500
//   without text, a 200 without clientSecret, an unanswered or not-succeeded
//   confirmation) and then let the real request through, which must recover.
// - 'Stripe is not ready. Please try again.' belongs to the Stripe form: see
//   the walk 'orders: the Stripe path ...' (orders.mjs) and checkout.test.tsx.
import { expect, expectNoSidewaysPan } from '../lib.mjs'

const PAID = 'e0000000-0000-4000-8000-000000000003' // Startup CRM, $19.00
const CONFIRM = '**/api/simulated-payments/*/confirm'
const CREATE = '**/functions/v1/create-payment-intent'

const DECLINES = [
  { card: '4000 0000 0000 0002', code: 'card_declined', decline: 'generic_decline', text: 'Your card was declined.' },
  { card: '4000 0000 0000 9995', code: 'card_declined', decline: 'insufficient_funds', text: 'Your card has insufficient funds.' },
  {
    card: '4000 0000 0000 0119',
    code: 'processing_error',
    decline: undefined,
    text: 'An error occurred while processing your card. Try again in a little bit.',
  },
]

function checkoutPath(email) {
  return `/checkout?templateId=${PAID}&buyerEmail=${encodeURIComponent(email)}`
}

/** The checkout's card form, ready: the total shown, expiry and CVC filled. */
async function cardForm(page) {
  await page.getByTestId('checkout-total').filter({ hasText: '$19.00' }).waitFor()
  await page.getByLabel('Expiry (MM/YY)').fill('12/39')
  await page.getByLabel('CVC').fill('123')
}

/** Pays with `card`; resolves to the confirmation's response (null when it was aborted). */
async function pay(page, card) {
  await page.getByLabel('Card number').fill(card)
  const answered = page.waitForEvent('requestfinished', { predicate: (r) => r.url().includes('/confirm') }).catch(() => null)
  const failed = page.waitForEvent('requestfailed', { predicate: (r) => r.url().includes('/confirm') }).catch(() => null)
  await page.getByRole('button', { name: 'Pay & Download' }).click()
  const request = await Promise.race([answered, failed])
  return request ? await request.response() : null
}

/** The checkout shows `text` as its alert, and stays open for another try. */
async function failedWith(page, text) {
  await page.getByRole('alert').filter({ hasText: text }).waitFor()
  expect(new URL(page.url()).pathname === '/checkout', `still on the checkout: ${page.url()}`)
  const button = page.getByRole('button', { name: 'Pay & Download' })
  expect(await button.isEnabled(), `Pay & Download is enabled again after '${text}'`)
  expect(await page.getByLabel('Card number').isEnabled(), 'the card number can be changed')
}

async function paysAndLands(page) {
  const response = await pay(page, '4242 4242 4242 4242')
  expect(response?.status() === 200, `4242 answered ${response?.status()}`)
  await page.getByText('Payment successful!').waitFor()
  await page.waitForURL((u) => u.pathname.startsWith('/download-secure/') && u.searchParams.has('token'))
  await page.getByRole('heading', { name: 'Your download is ready' }).waitFor()
  await page.getByRole('link', { name: 'Download File' }).waitFor()
}

export const walks = [
  {
    name: "payments: a guest's declined test cards show the provider's messages, then 4242 pays",
    async run(page, { url, viewport }) {
      const email = `e2e-declines-${viewport}-${Date.now()}@example.com`
      await page.goto(`${url}/template/${PAID}`)
      await page.getByTestId('price').filter({ hasText: '$19.00' }).waitFor()
      await page.getByLabel('Email for your receipt and download').fill(email)
      const created = page.waitForResponse((r) => r.url().endsWith('/functions/v1/create-payment-intent'))
      await page.getByTestId('price-card').getByRole('button', { name: 'Purchase & Download' }).click()
      await page.waitForURL((u) => u.pathname === '/checkout' && u.searchParams.get('buyerEmail') === email)
      const intent = await (await created).json()
      await cardForm(page)

      const { anonKey } = await (await fetch(`${url}/_/app-config.json`)).json()
      const validate = () =>
        fetch(`${url}/functions/v1/validate-download`, {
          method: 'POST',
          headers: { apikey: anonKey, authorization: `Bearer ${anonKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ orderId: intent.orderId, token: intent.downloadToken }),
        })

      for (const { card, code, decline, text } of DECLINES) {
        const response = await pay(page, card)
        expect(response?.status() === 402, `${card} answered ${response?.status()}`)
        const { error } = await response.json()
        expect(
          error?.type === 'card_error' && error.code === code && error.decline_code === decline && error.message === text,
          `${card}: Stripe's card error, got ${JSON.stringify(error)}`,
        )
        await failedWith(page, text)
        // The order stays unpaid: its download link is refused.
        const refused = await validate()
        expect(refused.status === 402, `after ${card}, validate-download answered ${refused.status}`)
      }
      if (viewport === 'phone') await expectNoSidewaysPan(page, 'the checkout after a decline')
      await paysAndLands(page)
      const opened = await validate()
      expect(opened.status === 200, `after 4242, validate-download answered ${opened.status}`)
    },
  },
  {
    name: 'payments: checkout initialization failures show their messages, and Try Again recovers',
    async run(page, { url, viewport }) {
      // Fault injection on the network: create-payment-intent is aborted,
      // answered 500 without an error text, then 200 without clientSecret;
      // at last the real request goes through.
      let fault = 'abort'
      await page.route(CREATE, async (route) => {
        if (fault === 'abort') return route.abort('connectionrefused')
        if (fault === '500') return route.fulfill({ status: 500, json: {} })
        if (fault === 'no-secret') {
          return route.fulfill({ json: { orderId: '00000000-0000-4000-8000-0000000000e3', downloadToken: 'tok', provider: 'simulated', amount: 1900, currency: 'usd' } })
        }
        return route.continue()
      })
      await page.goto(`${url}${checkoutPath(`e2e-init-${viewport}-${Date.now()}@example.com`)}`)
      for (const [next, text] of [
        ['500', 'Network error during payment initialization.'],
        ['no-secret', 'Failed to initiate payment.'],
        ['real', 'Missing payment credentials from server.'],
      ]) {
        await page.getByRole('alert').filter({ hasText: text }).waitFor()
        expect((await page.getByRole('button', { name: 'Pay & Download' }).count()) === 0, `no card form with '${text}'`)
        fault = next
        await page.getByRole('button', { name: 'Try Again' }).click()
      }
      await cardForm(page)
      await paysAndLands(page)
    },
  },
  {
    name: "payments: an unanswered confirmation says 'Payment failed.', one not succeeded says 'Payment was not successful.'",
    async run(page, { url, viewport }) {
      // Fault injection on the network: the confirmation is aborted, then
      // answered 200 with a status other than 'succeeded'; then the real
      // confirmation pays.
      let fault = 'abort'
      await page.route(CONFIRM, async (route) => {
        if (fault === 'abort') return route.abort('connectionreset')
        if (fault === 'processing') return route.fulfill({ json: { status: 'processing' } })
        return route.continue()
      })
      await page.goto(`${url}${checkoutPath(`e2e-confirm-${viewport}-${Date.now()}@example.com`)}`)
      await cardForm(page)
      expect((await pay(page, '4242 4242 4242 4242')) === null, 'the aborted confirmation had no answer')
      await failedWith(page, 'Payment failed.')
      fault = 'processing'
      await pay(page, '4242 4242 4242 4242')
      await failedWith(page, 'Payment was not successful.')
      fault = 'none'
      await paysAndLands(page)
    },
  },
]
