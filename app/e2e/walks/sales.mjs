// Browser walk of the creators' Sales screen (issue 44, item 8), at both
// viewports: a new creator with a connected (simulated) payment account, a
// paid template bought by a guest through the simulated provider and a free
// template downloaded once. The screen's revenue total matches the paid
// orders in the database, the order shows with its buyer masked, the
// conversion figures are the database's, the payout status is the
// provider's; another creator sees none of it; nothing pans sideways on the
// phone.
import { apiVisitor, checkA11y, confirmSimulated, expect, expectNoSidewaysPan, signIn, startGuestPayment, visit } from '../lib.mjs'

const PASSWORD = 'a-long-password-1'

async function appKey(url) {
  return (await (await fetch(`${url}/_/app-config.json`)).json()).anonKey
}

/** `POST /api{path}` as the holder of `token`. */
async function apiPost(url, path, token, body) {
  const anonKey = await appKey(url)
  const response = await fetch(`${url}/api${path}`, {
    method: 'POST',
    headers: { apikey: anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** A published template of `owner` (no screen publishes without an admin). */
async function publish(sql, owner, title, cents) {
  const [{ id }] = await sql(
    `insert into public.templates (user_id, title, description, price, price_in_cents, template_url, total_views)
     values ($1, $2, 'A template for the sales walk.', $3::numeric / 100, $3, 'https://cdn.example/sales-walk.zip', 0)
     returning id`,
    [owner, title, cents],
  )
  return id
}

const money = (cents) => `$${(cents / 100).toFixed(2)}`

export const walks = [
  {
    name: "sales: a creator's revenue, orders (buyers masked), conversion and payout status; others see none of it",
    async run(page, { url, viewport, sql }) {
      const stamp = `${viewport}-${Date.now()}`
      const email = `e2e-sales-${stamp}@example.com`
      const creator = await apiVisitor(url, email)
      // The password apiVisitor signed up with, for the browser's sign-in.
      expect(creator.id, 'the creator signed up')
      const connected = await apiPost(url, '/stripe/connect', creator.token, { userId: creator.id })
      expect(connected.status === 200, `connect answered ${connected.status} ${JSON.stringify(connected.body)}`)
      const paid = await publish(sql, creator.id, `Sales Kit ${viewport}`.slice(0, 30), 1200)
      const free = await publish(sql, creator.id, `Free Pack ${viewport}`.slice(0, 30), 0)

      // A guest buys the paid template through the simulated provider.
      const intent = await startGuestPayment(url, paid, `john.${stamp}@example.com`)
      await confirmSimulated(url, intent)
      // Someone downloads the free one.
      const anonKey = await appKey(url)
      const freeOrder = await fetch(`${url}/functions/v1/create-free-order`, {
        method: 'POST',
        headers: { apikey: anonKey, authorization: `Bearer ${anonKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ product_id: free, buyer_email: `kim.${stamp}@example.com` }),
      })
      expect(freeOrder.ok, `create-free-order answered ${freeOrder.status}`)
      // Views, as the template pages count them.
      await sql('update public.templates set total_views = 8 where id = $1', [paid])
      await sql('update public.templates set total_views = 3 where id = $1', [free])

      const [db] = await sql(
        `select coalesce(sum(o.price_in_cents) filter (where o.payment_status = 'paid'), 0)::int as gross,
                count(*) filter (where o.payment_status = 'paid')::int as sales,
                count(*) filter (where o.payment_status = 'free')::int as free
           from public.orders o join public.templates t on t.id = o.product_id where t.user_id = $1`,
        [creator.id],
      )
      expect(db.gross === 1200 && db.sales === 1 && db.free === 1, `the database: ${JSON.stringify(db)}`)

      await signIn(page, url, email, PASSWORD, '/dashboard/sales')
      // The server knows the route (the built app's routes.json): 200, not 404.
      const opened = await page.goto(`${url}/dashboard/sales`)
      expect(opened?.status() === 200, `/dashboard/sales answered ${opened?.status()}`)
      await page.getByRole('heading', { name: 'Sales', level: 1 }).waitFor()
      await page.getByTestId('total-gross').filter({ hasText: money(db.gross) }).waitFor()
      expect((await page.getByTestId('total-sales').textContent()).trim() === String(db.sales), 'the sales count')
      expect((await page.getByTestId('total-free').textContent()).trim() === String(db.free), 'the free downloads')
      expect((await page.getByTestId('total-fee').textContent()).trim() === money(120), 'the platform fee (10%)')
      expect((await page.getByTestId('total-net').textContent()).trim() === money(1080), 'the net')
      const bars = await page.getByTestId('revenue-bar').evaluateAll((rects) =>
        rects.map((r) => ({ value: Number(r.getAttribute('data-value')), height: Number(r.getAttribute('height')) })),
      )
      expect(bars.length === 30, `30 daily bars, got ${bars.length}`)
      expect(bars.at(-1).value === 1200 && bars.at(-1).height > 0, `today's bar: ${JSON.stringify(bars.at(-1))}`)

      // The orders: the paid one with its buyer masked, and the free one.
      const orders = page.getByTestId('order-row')
      await orders.first().waitFor()
      expect((await orders.count()) === 2, `two orders, got ${await orders.count()}`)
      const paidRow = orders.filter({ hasText: 'Paid' })
      expect((await paidRow.getByTestId('order-buyer').textContent()).trim() === 'j***@example.com', 'the buyer is masked')
      expect((await paidRow.getByTestId('order-amount').textContent()).trim() === money(1200), 'the paid amount')
      expect(!(await page.content()).includes(`john.${stamp}@`), 'no full buyer address on the page')
      await orders.filter({ hasText: 'Free' }).waitFor()

      // Conversion per template: the database's views and downloads.
      const counters = await sql('select id, total_views, downloads_count from public.templates where user_id = $1', [creator.id])
      for (const t of counters) {
        const row = page.locator(`[data-testid="template-sales-row"][data-template-id="${t.id}"]`)
        const text = async (id) => (await row.getByTestId(id).textContent()).replace(/^(Views|Downloads|Conversion)/, '').trim()
        expect((await text('figure-views')) === String(t.total_views), `views of ${t.id}: ${await text('figure-views')} vs ${t.total_views}`)
        expect((await text('figure-downloads')) === String(t.downloads_count), `downloads of ${t.id}`)
        const percent = `${(Math.round((t.downloads_count / t.total_views) * 1000) / 10).toFixed(1)}%`
        expect((await text('figure-conversion')) === percent, `conversion of ${t.id}: ${await text('figure-conversion')} vs ${percent}`)
      }

      // The payout status from the (simulated) provider: the sale's share is pending.
      const payout = page.getByTestId('payout-status')
      await payout.waitFor()
      expect((await payout.getAttribute('data-connected')) === 'true', 'the account is connected')
      await payout.getByText('Payouts enabled').waitFor()
      expect((await payout.getByTestId('balance-pending').textContent()).trim() === money(1080), 'the pending balance')

      if (viewport === 'phone') await expectNoSidewaysPan(page, 'the sales screen')
      await checkA11y(page, { viewport, who: 'creator', state: 'sales' })

      // Another creator: none of those orders, by the API and on the screen.
      const other = await apiVisitor(url, `e2e-sales-other-${stamp}@example.com`)
      const theirs = await apiPost(url, '/creator/orders', other.token, { pageSize: 50 })
      expect(theirs.status === 200 && theirs.body.total === 0, `another creator's orders: ${JSON.stringify(theirs.body)}`)
      const theirSales = await apiPost(url, '/creator/sales', other.token, { range: '12m' })
      expect(theirSales.body.gross === 0 && theirSales.body.templates.length === 0, `another creator's sales: ${JSON.stringify(theirSales.body)}`)
      const peek = await apiPost(url, '/stripe/payout-status', other.token, { userId: creator.id })
      expect(peek.status === 403, `another creator's payout status answered ${peek.status}`)
      await page.evaluate(() => window.localStorage.clear())
      await page.context().clearCookies()
      await signIn(page, url, `e2e-sales-other-${stamp}@example.com`, PASSWORD, '/dashboard/sales')
      await visit(page, url, '/dashboard/sales')
      await page.getByText('No orders yet').waitFor()
      await page.getByTestId('total-gross').filter({ hasText: '$0.00' }).waitFor()
      expect((await page.getByTestId('order-row').count()) === 0, 'no orders for the other creator')
      if (viewport === 'phone') await expectNoSidewaysPan(page, 'the empty sales screen')
    },
  },
]
