import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, type ApiHandler } from '@/testing/fake-supabase'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'

const series = [
  { start: '2026-11-26', gross: 0, sales: 0, freeDownloads: 1 },
  { start: '2026-11-27', gross: 2500, sales: 1, freeDownloads: 0 },
  { start: '2026-11-28', gross: 1000, sales: 2, freeDownloads: 3 },
]

function salesBody(overrides: Record<string, unknown> = {}) {
  return {
    range: '30d',
    bucket: 'day',
    timeZone: 'UTC',
    currency: 'usd',
    series,
    gross: 3500,
    fee: 350,
    net: 3150,
    sales: 3,
    freeDownloads: 4,
    platformFeeBps: 1000,
    templates: [
      { templateId: 't-1', title: 'Budget Planner', priceInCents: 2500, totalViews: 40, downloadsCount: 3, sales: 1, gross: 2500 },
      { templateId: 't-2', title: 'Unseen', priceInCents: 0, totalViews: 0, downloadsCount: 0, sales: 0, gross: 0 },
    ],
    ...overrides,
  }
}

function order(n: number, overrides: Record<string, unknown> = {}) {
  return {
    id: `o-${n}`,
    createdAt: '2026-11-27T10:00:00.000Z',
    paidAt: '2026-11-27T10:01:00.000Z',
    templateId: 't-1',
    templateTitle: 'Budget Planner',
    buyer: 'j***@example.com',
    amount: 2500,
    currency: 'usd',
    status: 'paid',
    ...overrides,
  }
}

const connected = {
  provider: 'simulated',
  connected: true,
  accountId: 'acct_sim_1',
  chargesEnabled: true,
  payoutsEnabled: true,
  detailsSubmitted: true,
  requirementsDue: [],
  available: [{ amount: 1200, currency: 'usd' }],
  pending: [{ amount: 2250, currency: 'usd' }],
  payouts: [],
  platformFeeBps: 1000,
}

function setup(path: string, api: Record<string, ApiHandler> = {}) {
  const fake = new FakeSupabase({
    tables: marketplace({ profiles: PROFILES }),
    signedInAs: MAYA,
    api: {
      '/creator/sales': () => ({ body: salesBody() }),
      '/creator/orders': () => ({ body: { orders: [order(1), order(2, { status: 'free', amount: 0, buyer: 'a***@test.dev' })], page: 1, pageSize: 10, total: 2 } }),
      '/stripe/payout-status': () => ({ body: connected }),
      ...api,
    },
  })
  return renderApp(path, fake)
}

const region = (name: string) => screen.getByRole('region', { name })

describe('dashboard sales', () => {
  it('shows the totals, a bar per day scaled to a round axis, and the chart as a table', async () => {
    setup('/dashboard/sales')
    expect(await screen.findByTestId('total-gross')).toHaveTextContent('$35.00')
    expect(screen.getByTestId('total-fee')).toHaveTextContent('$3.50')
    expect(screen.getByText('Platform fee (10%)')).toBeInTheDocument()
    expect(screen.getByTestId('total-net')).toHaveTextContent('$31.50')
    expect(screen.getByTestId('total-sales')).toHaveTextContent('3')
    expect(screen.getByTestId('total-free')).toHaveTextContent('4')
    const chart = screen.getByTestId('revenue-chart')
    // The tallest day is $25.00: the axis tops out at $25 and that bar fills the plot.
    expect(chart).toHaveAttribute('data-top', '2500')
    const barsDrawn = within(chart).getAllByTestId('revenue-bar')
    expect(barsDrawn).toHaveLength(3)
    const heights = barsDrawn.map((b) => Number(b.getAttribute('height')))
    expect(heights[0]).toBe(0)
    expect(heights[1]).toBeCloseTo(heights[2] * 2.5)
    expect(screen.getByRole('table', { name: 'Revenue per day' })).toBeInTheDocument()
  })

  it('asks for the range chosen and keeps it in the URL', async () => {
    const user = userEvent.setup()
    const { fake, router } = setup('/dashboard/sales')
    await screen.findByTestId('total-gross')
    expect(fake.callsTo('api:/creator/sales')[0].payload).toMatchObject({ range: '30d' })
    await user.click(screen.getByRole('button', { name: '12 months' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/sales?range=12m'))
    await waitFor(() => expect(fake.callsTo('api:/creator/sales').at(-1)?.payload).toMatchObject({ range: '12m' }))
    expect(screen.getByRole('button', { name: '12 months' })).toHaveAttribute('aria-pressed', 'true')
  })

  it('lists the orders with masked buyers, amounts and statuses', async () => {
    setup('/dashboard/sales')
    const rows = await within(await screen.findByTestId('orders')).findAllByTestId('order-row')
    expect(rows).toHaveLength(2)
    expect(within(rows[0]).getByText('Budget Planner')).toBeInTheDocument()
    expect(within(rows[0]).getByTestId('order-buyer')).toHaveTextContent('j***@example.com')
    expect(within(rows[0]).getByTestId('order-amount')).toHaveTextContent('$25.00')
    expect(within(rows[0]).getByText('Paid')).toBeInTheDocument()
    expect(within(rows[1]).getByText('Free')).toBeInTheDocument()
    expect(within(rows[1]).getByTestId('order-amount')).toHaveTextContent('$0.00')
    expect(screen.getByTestId('orders-showing')).toHaveTextContent('1–2 of 2')
  })

  it('pages the orders through the URL and filters them by status', async () => {
    const user = userEvent.setup()
    const { fake, router } = setup('/dashboard/sales', {
      '/creator/orders': (body) => ({
        body: { orders: [order(Number(body.page) * 100)], page: body.page, pageSize: 10, total: 25 },
      }),
    })
    expect(await screen.findByTestId('orders-showing')).toHaveTextContent('1–10 of 25')
    await user.click(screen.getByRole('link', { name: /Next/ }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/sales?page=2'))
    expect(await screen.findByTestId('orders-showing')).toHaveTextContent('11–20 of 25')
    expect(fake.callsTo('api:/creator/orders').at(-1)?.payload).toEqual({ page: 2, pageSize: 10, status: 'all' })
    await user.selectOptions(screen.getByLabelText('Show'), 'paid')
    // A new filter starts again from the first page.
    await waitFor(() => expect(here(router)).toBe('/dashboard/sales?status=paid'))
    await waitFor(() => expect(fake.callsTo('api:/creator/orders').at(-1)?.payload).toEqual({ page: 1, pageSize: 10, status: 'paid' }))
  })

  it('says so when there are no orders', async () => {
    setup('/dashboard/sales', { '/creator/orders': () => ({ body: { orders: [], page: 1, pageSize: 10, total: 0 } }) })
    expect(await screen.findByText('No orders yet')).toBeInTheDocument()
  })

  it('shows the conversion of views into downloads per template', async () => {
    setup('/dashboard/sales')
    const rows = await within(await screen.findByTestId('template-sales')).findAllByTestId('template-sales-row')
    expect(within(rows[0]).getByTestId('figure-views')).toHaveTextContent('40')
    expect(within(rows[0]).getByTestId('figure-downloads')).toHaveTextContent('3')
    expect(within(rows[0]).getByTestId('figure-conversion')).toHaveTextContent('7.5%')
    expect(within(rows[0]).getByTestId('figure-revenue')).toHaveTextContent('$25.00')
    expect(within(rows[1]).getByTestId('figure-conversion')).toHaveTextContent('—')
  })

  it("shows the provider's payout status for the creator's own account", async () => {
    const { fake } = setup('/dashboard/sales')
    const payouts = await screen.findByTestId('payout-status')
    expect(payouts).toHaveAttribute('data-connected', 'true')
    expect(within(payouts).getByText('Payouts enabled')).toBeInTheDocument()
    expect(within(payouts).getByTestId('balance-available')).toHaveTextContent('$12.00')
    expect(within(payouts).getByTestId('balance-pending')).toHaveTextContent('$22.50')
    expect(within(payouts).getByText('No payouts yet.')).toBeInTheDocument()
    expect(fake.callsTo('api:/stripe/payout-status')[0].payload).toEqual({ userId: MAYA.id })
  })

  it('lists what the provider still needs and the recent payouts', async () => {
    setup('/dashboard/sales', {
      '/stripe/payout-status': () => ({
        body: {
          ...connected,
          provider: 'stripe',
          payoutsEnabled: false,
          requirementsDue: ['individual.verification.document'],
          disabledReason: 'requirements.past_due',
          payouts: [{ id: 'po_1', amount: 4200, currency: 'usd', status: 'in_transit', arrivalDate: 1_795_000_000, created: 1_794_900_000 }],
        },
      }),
    })
    const payouts = await screen.findByTestId('payout-status')
    expect(within(payouts).getByText('Payouts paused')).toBeInTheDocument()
    expect(within(payouts).getByText('Individual verification document')).toBeInTheDocument()
    expect(within(payouts).getByText('Reason: Requirements past due')).toBeInTheDocument()
    expect(within(within(payouts).getByTestId('payouts')).getByText('$42.00')).toBeInTheDocument()
    expect(within(payouts).getByText('in transit')).toBeInTheDocument()
  })

  it('sends a creator without an account to the payment profile', async () => {
    setup('/dashboard/sales', {
      '/stripe/payout-status': () => ({ body: { ...connected, connected: false, accountId: undefined, available: [], pending: [] } }),
    })
    const payouts = await screen.findByTestId('payout-status')
    expect(payouts).toHaveAttribute('data-connected', 'false')
    expect(within(payouts).getByRole('link', { name: /Connect a payment account/ })).toHaveAttribute('href', '/dashboard/settings')
  })

  it('shows a load error when the sales cannot be read, and the rest of the screen still works', async () => {
    setup('/dashboard/sales', { '/creator/sales': () => ({ status: 500, body: { error: 'internal error' } }) })
    expect(await within(await screen.findByRole('region', { name: 'Revenue' })).findByText("We couldn't load your sales")).toBeInTheDocument()
    expect(await within(region('Orders')).findAllByTestId('order-row')).toHaveLength(2)
  })

  it('is in the dashboard sidebar', async () => {
    setup('/dashboard/sales')
    const sidebar = await screen.findByRole('complementary', { name: 'Dashboard' })
    expect(within(sidebar).getByRole('link', { name: 'Sales' })).toHaveAttribute('aria-current', 'page')
  })
})
