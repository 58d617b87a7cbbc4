import { describe, expect, it } from 'vitest'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import { functionError, UNREACHABLE } from '@/testing/fake-supabase'

const ORDER = '0a000000-0000-4000-8000-000000000003'
const OTHER = '0a000000-0000-4000-8000-000000000004'

function orders() {
  return [
    { id: ORDER, product_id: 't-crm', buyer_id: MAYA.id, buyer_email: MAYA.email, price_in_cents: 1900, payment_status: 'paid', download_url: 'https://files.example/crm.zip', created_at: '2024-06-01T00:00:00Z' },
    { id: OTHER, product_id: 't-budget', buyer_id: MAYA.id, buyer_email: MAYA.email, price_in_cents: 500, payment_status: 'paid', download_url: null, created_at: '2024-06-02T00:00:00Z' },
  ]
}

describe('order download', () => {
  it('sends visitors to sign in first', async () => {
    const { router } = renderApp(`/download/${ORDER}`, { tables: marketplace({ orders: orders() }) })
    await screen.findByRole('button', { name: 'Sign In' })
    expect(here(router)).toBe(`/auth?mode=sign-in&redirect=${encodeURIComponent(`/download/${ORDER}`)}`)
  })

  it("offers the order's file with its template", async () => {
    const { fake } = renderApp(`/download/${ORDER}`, { tables: marketplace({ orders: orders() }), signedInAs: MAYA })
    expect(await screen.findByRole('link', { name: 'Download File' })).toHaveAttribute('href', 'https://files.example/crm.zip')
    expect(screen.getByText('Startup CRM')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Marketplace' })).toHaveAttribute('href', '/discover')
    expect(fake.callsTo('orders', 'select')[0].filters).toEqual([`id=eq.${ORDER}`])
  })

  it('shows no link, but an error, for a download link that is not a web link', async () => {
    const rows = orders().map((o) => (o.id === ORDER ? { ...o, download_url: 'data:text/html,<script>parent.__pwned=1</script>' } : o))
    renderApp(`/download/${ORDER}`, { tables: marketplace({ orders: rows }), signedInAs: MAYA })
    expect(await screen.findByText('This download link cannot be opened.')).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Download File' })).not.toBeInTheDocument()
  })

  it('says when the order has no download', async () => {
    renderApp(`/download/${OTHER}`, { tables: marketplace({ orders: orders() }), signedInAs: MAYA })
    expect(await screen.findByText('No download available for this order.')).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Download File' })).not.toBeInTheDocument()
    expect(screen.getByText('Budget Planner')).toBeInTheDocument()
  })

  it("opens a paid order's private file for its signed-in buyer, without a token", async () => {
    const { fake } = renderApp(`/download/${OTHER}`, {
      tables: marketplace({ orders: orders() }),
      signedInAs: MAYA,
      functions: { 'validate-download': () => ({ data: { downloadUrl: 'https://files.example/signed?token=t', isPaid: true, price_in_cents: 500, buyer_email: MAYA.email, orderId: OTHER } }) },
    })
    expect(await screen.findByRole('link', { name: 'Download File' })).toHaveAttribute('href', 'https://files.example/signed?token=t')
    expect(fake.callsTo('fn:validate-download')[0].payload).toEqual({ orderId: OTHER })
  })

  it("says an own unpaid order has no download, in the spec's words", async () => {
    const rows = orders().map((o) => (o.id === OTHER ? { ...o, payment_status: 'pending' } : o))
    const { fake } = renderApp(`/download/${OTHER}`, {
      tables: marketplace({ orders: rows }),
      signedInAs: MAYA,
      functions: { 'validate-download': () => ({ error: functionError(402, 'Payment not completed. Please complete your purchase first.') }) },
    })
    expect(await screen.findByText('No download available for this order.')).toBeInTheDocument()
    expect(fake.callsTo('fn:validate-download')).toHaveLength(1)
    expect(screen.queryByText(/Payment not completed/)).not.toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Download File' })).not.toBeInTheDocument()
  })

  it('says an unknown or foreign order is not found', async () => {
    // Row-level security hides other buyers' orders: the read finds nothing.
    renderApp('/download/0a000000-0000-4000-8000-00000000ffff', { tables: marketplace({ orders: orders() }), signedInAs: MAYA })
    expect(await screen.findByText('Order not found or you do not have access.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Marketplace' })).toBeInTheDocument()
  })

  it('does not read an id that is not an order id', async () => {
    const { fake } = renderApp('/download/not-an-order', { tables: marketplace({ orders: orders() }), signedInAs: MAYA })
    expect(await screen.findByText('Order not found or you do not have access.')).toBeInTheDocument()
    expect(fake.callsTo('orders')).toHaveLength(0)
  })

  it('says Missing order ID. for a blank id', async () => {
    renderApp('/download/%20', { tables: marketplace({ orders: orders() }), signedInAs: MAYA })
    expect(await screen.findByText('Missing order ID.')).toBeInTheDocument()
  })

  it("shows the server's refusal of a read", async () => {
    renderApp(`/download/${ORDER}`, { tables: marketplace({ orders: orders() }), signedInAs: MAYA, failing: { orders: { message: 'permission denied for table orders', code: '42501' } } })
    expect(await screen.findByText('permission denied for table orders')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument()
  })

  it('offers Try again when the server cannot be reached, and then the file', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp(`/download/${ORDER}`, { tables: marketplace({ orders: orders() }), signedInAs: MAYA, failing: { orders: { ...UNREACHABLE } } })
    expect(await screen.findByRole('alert')).toHaveTextContent("We couldn't load your order")
    expect(screen.queryByText('Order not found or you do not have access.')).not.toBeInTheDocument()
    fake.failing = {}
    await user.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('link', { name: 'Download File' })).toHaveAttribute('href', 'https://files.example/crm.zip')
  })
})
