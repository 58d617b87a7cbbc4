import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { functionError, type FakeOptions } from '@/testing/fake-supabase'

const ORDER = '0a000000-0000-4000-8000-000000000002'
const PAGE = `/download-secure/${ORDER}?token=tok-456`
const FILE = 'http://localhost:3000/storage/v1/object/sign/template-files/u/f.zip?token=signed'

function validated(overrides: Record<string, unknown> = {}) {
  return { downloadUrl: FILE, isPaid: true, price_in_cents: 1900, buyer_email: 'buyer@example.com', orderId: ORDER, ...overrides }
}

function options(extra: Partial<FakeOptions> = {}): FakeOptions {
  return {
    functions: { 'validate-download': () => ({ data: validated() }) },
    api: { '/paid-download-confirmation': () => ({ body: { success: true, sent: true, alreadySent: false } }) },
    ...extra,
  }
}

describe('secure download', () => {
  it('needs the order id and the token', async () => {
    const { fake } = renderApp(`/download-secure/${ORDER}`, options())
    expect(await screen.findByText('Missing order ID or token.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: 'Download Error' })).toBeInTheDocument()
    expect(fake.callsTo('fn:validate-download')).toHaveLength(0)
  })

  it('validates the link, offers the file and asks for the receipt once', async () => {
    const { fake } = renderApp(PAGE, options())
    expect(screen.getByText('Validating download...')).toBeInTheDocument()
    const link = await screen.findByRole('link', { name: 'Download File' })
    expect(link).toHaveAttribute('href', FILE)
    expect(screen.getByRole('heading', { name: 'Your download is ready' })).toBeInTheDocument()
    expect(fake.callsTo('fn:validate-download')[0].payload).toEqual({ orderId: ORDER, token: 'tok-456' })
    await waitFor(() => expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(1))
    expect(fake.callsTo('api:/paid-download-confirmation')[0].payload).toEqual({ orderId: ORDER, email: 'buyer@example.com' })
    expect(screen.getByRole('link', { name: 'Back to Marketplace' })).toHaveAttribute('href', '/discover')
    // Once: a later render does not send it again.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(1)
  })

  it('sends no receipt for a free order', async () => {
    const { fake } = renderApp(PAGE, options({ functions: { 'validate-download': () => ({ data: validated({ price_in_cents: 0 }) }) } }))
    await screen.findByRole('link', { name: 'Download File' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(0)
  })

  it('keeps the download when the receipt request fails', async () => {
    const { fake } = renderApp(PAGE, options({ api: { '/paid-download-confirmation': () => ({ status: 500, body: { error: 'mail down' } }) } }))
    await waitFor(() => expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(1))
    expect(screen.getByRole('link', { name: 'Download File' })).toBeInTheDocument()
  })

  it('explains a 402 and validates again on Retry', async () => {
    const user = userEvent.setup()
    let calls = 0
    const { fake } = renderApp(
      PAGE,
      options({
        functions: {
          'validate-download': () =>
            ++calls === 1 ? { error: functionError(402, 'Payment required', { isPaid: false }) } : { data: validated() },
        },
      }),
    )
    expect(await screen.findByRole('heading', { name: 'Download Error' })).toBeInTheDocument()
    expect(screen.getByText('Payment not completed. Please complete your purchase first.')).toBeInTheDocument()
    expect(screen.getByText(/wait a moment and try again/)).toBeInTheDocument()
    expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(0)
    await user.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByRole('link', { name: 'Download File' })).toHaveAttribute('href', FILE)
    expect(fake.callsTo('fn:validate-download')).toHaveLength(2)
    await waitFor(() => expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(1))
  })

  it("shows the server's text for a wrong token, without Retry", async () => {
    renderApp(PAGE, options({ functions: { 'validate-download': () => ({ error: functionError(403, 'Invalid or expired download link.') }) } }))
    expect(await screen.findByText('Invalid or expired download link.')).toBeInTheDocument()
    expect(screen.getByRole('heading', { name: 'Download Error' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Retry' })).not.toBeInTheDocument()
  })

  it("falls back to 'Invalid or expired download link.' without a server text", async () => {
    renderApp(PAGE, options({ functions: { 'validate-download': () => ({ error: functionError(404, '') }) } }))
    expect(await screen.findByText('Invalid or expired download link.')).toBeInTheDocument()
  })

  it("says 'Something went wrong.' when the server is not reached", async () => {
    renderApp(PAGE, options({ functions: { 'validate-download': () => ({ error: { message: 'fetch failed' } }) } }))
    expect(await screen.findByText('Something went wrong.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument()
  })

  it('says there is no download when the order has no file, and still asks for the receipt', async () => {
    const { fake } = renderApp(PAGE, options({ functions: { 'validate-download': () => ({ data: validated({ downloadUrl: undefined }) }) } }))
    expect(await screen.findByRole('heading', { name: 'No Download Available' })).toBeInTheDocument()
    expect(screen.getByText('No download URL available.')).toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Download File' })).not.toBeInTheDocument()
    await waitFor(() => expect(fake.callsTo('api:/paid-download-confirmation')).toHaveLength(1))
  })
})
