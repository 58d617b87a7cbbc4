import { describe, expect, it } from 'vitest'
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { LEO, marketplace, MAYA } from '@/testing/fixtures'
import { UNREACHABLE } from '@/testing/fake-supabase'

const A = '0a000000-0000-4000-8000-00000000000a'
const B = '0a000000-0000-4000-8000-00000000000b'

function order(id: string, overrides: Record<string, unknown>) {
  return { id, buyer_id: MAYA.id, buyer_email: MAYA.email, currency: 'usd', download_url: null, ...overrides }
}

const ORDERS = [
  order(A, { product_id: 't-crm', price_in_cents: 1900, payment_status: 'paid', created_at: '2024-06-01T00:00:00Z' }),
  order(B, { product_id: 't-planner', price_in_cents: 0, payment_status: 'free', created_at: '2024-06-03T00:00:00Z' }),
  // An abandoned checkout and another buyer's order are not in Maya's library.
  order('0a000000-0000-4000-8000-00000000000c', { product_id: 't-budget', price_in_cents: 500, payment_status: 'pending', created_at: '2024-06-04T00:00:00Z' }),
  order('0a000000-0000-4000-8000-00000000000d', { product_id: 't-budget', buyer_id: LEO.id, price_in_cents: 500, payment_status: 'paid', created_at: '2024-06-05T00:00:00Z' }),
]

describe('dashboard library', () => {
  it("lists the user's completed orders, newest first, each to its download page", async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/library', { tables: marketplace({ orders: ORDERS }), signedInAs: MAYA })
    const list = await screen.findByRole('list', { name: 'Your templates' })
    const rows = within(list).getAllByRole('link')
    expect(rows).toHaveLength(2)
    expect(rows[0]).toHaveTextContent('Calm Weekly Planner')
    expect(rows[0]).toHaveTextContent('Downloaded Jun 3, 2024 · Free')
    expect(rows[0]).toHaveAttribute('href', `/download/${B}`)
    expect(rows[1]).toHaveTextContent('Startup CRM')
    expect(rows[1]).toHaveTextContent('Purchased Jun 1, 2024 · $19.00')
    expect(rows[1].querySelector('img')).toHaveAttribute('src', '/demo/planner.svg')
    const read = fake.callsTo('orders', 'select')[0]
    expect(read.filters).toEqual([`buyer_id=eq.${MAYA.id}`, 'payment_status=in.(paid,free)'])
    await user.click(rows[1])
    expect(here(router)).toBe(`/download/${A}`)
  })

  it('invites to Discover when the library is empty', async () => {
    renderApp('/dashboard/library', { tables: marketplace({ orders: [] }), signedInAs: MAYA })
    expect(await screen.findByText('Your library is empty')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Discover Templates' })).toHaveAttribute('href', '/discover')
  })

  it('still lists an order whose template is no longer listed', async () => {
    renderApp('/dashboard/library', {
      tables: marketplace({ orders: [order(A, { product_id: 't-gone', price_in_cents: 700, payment_status: 'paid', created_at: '2024-06-01T00:00:00Z' })] }),
      signedInAs: MAYA,
    })
    expect(await screen.findByRole('link', { name: /Template no longer listed/ })).toHaveAttribute('href', `/download/${A}`)
  })

  it('says when the library cannot be read, and reads it again on Try again', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/library', { tables: marketplace(), signedInAs: MAYA, failing: { orders: { ...UNREACHABLE } } })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent("We couldn't load your library")
    expect(screen.queryByText('Your library is empty')).not.toBeInTheDocument()
    fake.failing = {}
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('Your library is empty')).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })
})
