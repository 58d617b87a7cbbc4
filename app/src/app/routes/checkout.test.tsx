import { describe, expect, it, vi } from 'vitest'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { functionError, type FakeOptions } from '@/testing/fake-supabase'
import { marketplace, MAYA } from '@/testing/fixtures'

const ORDER = '0a000000-0000-4000-8000-000000000001'
const CHECKOUT = '/checkout?templateId=t-crm&buyerEmail=buyer%40example.com'

function intent(overrides: Record<string, unknown> = {}) {
  return {
    clientSecret: 'pi_sim_abc_secret_xyz',
    orderId: ORDER,
    downloadToken: 'tok-123',
    provider: 'simulated',
    amount: 1900,
    currency: 'usd',
    confirmUrl: 'http://localhost:3000/api/simulated-payments/pi_sim_abc?client_secret=pi_sim_abc_secret_xyz',
    ...overrides,
  }
}

function options(extra: Partial<FakeOptions> = {}): FakeOptions {
  return {
    tables: marketplace(),
    functions: { 'create-payment-intent': () => ({ data: intent() }) },
    api: { '/simulated-payments/pi_sim_abc/confirm': () => ({ body: { status: 'succeeded', orderId: ORDER } }) },
    ...extra,
  }
}

async function fillCard(user: ReturnType<typeof userEvent.setup>) {
  await user.type(await screen.findByLabelText('Card number'), '4242424242424242')
  await user.type(screen.getByLabelText('Expiry (MM/YY)'), '1239')
  await user.type(screen.getByLabelText('CVC'), '123')
}

describe('checkout', () => {
  it('needs templateId and buyerEmail', async () => {
    const { fake } = renderApp('/checkout?templateId=t-crm')
    expect(await screen.findByText('Missing required parameters: templateId and/or buyerEmail.')).toBeInTheDocument()
    expect(fake.callsTo('fn:create-payment-intent')).toHaveLength(0)
  })

  it("creates the guest's payment, then shows the simulated card form with the total", async () => {
    const { fake } = renderApp(CHECKOUT, options())
    expect(screen.getByText('Loading checkout...')).toBeInTheDocument()
    expect(await screen.findByTestId('checkout-total')).toHaveTextContent('$19.00')
    expect(screen.getByText('Startup CRM')).toBeInTheDocument()
    expect(screen.getByText('buyer@example.com')).toBeInTheDocument()
    expect(fake.callsTo('fn:create-payment-intent')).toHaveLength(1)
    expect(fake.callsTo('fn:create-payment-intent')[0].payload).toEqual({ templateId: 't-crm', buyerEmail: 'buyer@example.com' })
    expect(screen.getByRole('button', { name: 'Pay & Download' })).toBeEnabled()
    expect(screen.getByText(/no card is charged/)).toBeInTheDocument()
  })

  it('sends the buyerId of a signed-in buyer', async () => {
    const { fake } = renderApp(`${CHECKOUT}&buyerId=${MAYA.id}`, options({ signedInAs: MAYA }))
    await screen.findByTestId('checkout-total')
    expect(fake.callsTo('fn:create-payment-intent')[0].payload).toEqual({
      templateId: 't-crm',
      buyerEmail: 'buyer@example.com',
      buyerId: MAYA.id,
    })
  })

  it('checks the card fields before paying', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp(CHECKOUT, options())
    await screen.findByTestId('checkout-total')
    await user.type(screen.getByLabelText('Card number'), '4242')
    await user.type(screen.getByLabelText('Expiry (MM/YY)'), '1320')
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    expect(screen.getByText('Enter a valid card number.')).toBeInTheDocument()
    expect(screen.getByText('Enter the expiry date as MM/YY.')).toBeInTheDocument()
    expect(screen.getByText('Enter a valid CVC.')).toBeInTheDocument()
    expect(screen.getByLabelText('Card number')).toHaveAttribute('aria-invalid', 'true')
    expect(fake.callsTo('api:/simulated-payments/pi_sim_abc/confirm')).toHaveLength(0)
  })

  it('confirms the simulated payment, then opens the secure download page after 1 second', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    const { fake, router } = renderApp(
      CHECKOUT,
      options({
        api: {
          '/simulated-payments/pi_sim_abc/confirm': async () => {
            await held
            return { body: { status: 'succeeded', orderId: ORDER } }
          },
        },
      }),
    )
    await fillCard(user)
    expect(screen.getByLabelText('Card number')).toHaveValue('4242 4242 4242 4242')
    expect(screen.getByLabelText('Expiry (MM/YY)')).toHaveValue('12/39')
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    // Paying: locked, 'Processing...'.
    expect(await screen.findByRole('button', { name: 'Processing...' })).toBeDisabled()
    expect(screen.getByLabelText('Card number')).toBeDisabled()
    const calls = fake.callsTo('api:/simulated-payments/pi_sim_abc/confirm')
    expect(calls).toHaveLength(1)
    expect(calls[0].op).toBe('post')
    // Only the card number goes to the server (its test cards decide), digits only.
    expect(calls[0].payload).toEqual({ client_secret: 'pi_sim_abc_secret_xyz', card_number: '4242424242424242' })
    release()
    expect(await screen.findByText('Payment successful!')).toBeInTheDocument()
    expect(screen.getByText('Redirecting to your download...')).toBeInTheDocument()
    act(() => vi.advanceTimersByTime(800))
    expect(here(router)).toBe(CHECKOUT)
    act(() => vi.advanceTimersByTime(200))
    await waitFor(() => expect(here(router)).toBe(`/download-secure/${ORDER}?token=tok-123`))
  })

  it('shows the server text when the confirmation is refused, and lets the buyer try again', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp(
      CHECKOUT,
      options({ api: { '/simulated-payments/pi_sim_abc/confirm': () => ({ status: 403, body: { error: 'Invalid payment confirmation.' } }) } }),
    )
    await fillCard(user)
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    expect(await screen.findByText('Invalid payment confirmation.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Pay & Download' })).toBeEnabled()
    expect(here(router)).toBe(CHECKOUT)
    expect(fake.callsTo('api:/simulated-payments/pi_sim_abc/confirm')).toHaveLength(1)
  })

  it("shows a declined card's message (Stripe's error shape), then pays with another card on the same page", async () => {
    const user = userEvent.setup()
    const declines: Record<string, { code: string; decline_code?: string; message: string }> = {
      '4000000000000002': { code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' },
      '4000000000009995': { code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card has insufficient funds.' },
      '4000000000000119': { code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
    }
    const { fake, router } = renderApp(
      CHECKOUT,
      options({
        api: {
          '/simulated-payments/pi_sim_abc/confirm': (body) => {
            const decline = declines[(body as { card_number?: string }).card_number ?? '']
            if (decline) return { status: 402, body: { error: { type: 'card_error', ...decline } } }
            return { body: { status: 'succeeded', orderId: ORDER } }
          },
        },
      }),
    )
    await fillCard(user)
    const number = screen.getByLabelText('Card number')
    for (const [card, { message }] of Object.entries(declines)) {
      await user.clear(number)
      await user.type(number, card)
      await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
      expect(await screen.findByText(message)).toHaveAttribute('role', 'alert')
      expect(screen.getByRole('button', { name: 'Pay & Download' })).toBeEnabled()
      expect(here(router)).toBe(CHECKOUT)
    }
    await user.clear(number)
    await user.type(number, '4242424242424242')
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    expect(await screen.findByText('Payment successful!')).toBeInTheDocument()
    expect(screen.queryByText('An error occurred while processing your card. Try again in a little bit.')).not.toBeInTheDocument()
    expect(fake.callsTo('api:/simulated-payments/pi_sim_abc/confirm').map((c) => (c.payload as { card_number: string }).card_number)).toEqual([
      ...Object.keys(declines),
      '4242424242424242',
    ])
  })

  it("says 'Payment failed.' when a decline has no message or the confirmation is not answered", async () => {
    const user = userEvent.setup()
    let calls = 0
    renderApp(
      CHECKOUT,
      options({
        api: {
          '/simulated-payments/pi_sim_abc/confirm': () =>
            ++calls === 1 ? { status: 402, body: { error: { type: 'card_error', code: 'card_declined', message: '' } } } : { status: 502, body: 'Bad gateway' },
        },
      }),
    )
    await fillCard(user)
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    expect(await screen.findByText('Payment failed.')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    await waitFor(() => expect(calls).toBe(2))
    expect(await screen.findByText('Payment failed.')).toBeInTheDocument()
  })

  it("says 'Payment was not successful.' when the payment did not succeed", async () => {
    const user = userEvent.setup()
    renderApp(CHECKOUT, options({ api: { '/simulated-payments/pi_sim_abc/confirm': () => ({ body: { status: 'pending' } }) } }))
    await fillCard(user)
    await user.click(screen.getByRole('button', { name: 'Pay & Download' }))
    expect(await screen.findByText('Payment was not successful.')).toBeInTheDocument()
  })

  it('shows the function error, and a payment without credentials', async () => {
    renderApp(CHECKOUT, options({ functions: { 'create-payment-intent': () => ({ error: functionError(404, 'Template not found') }) } }))
    expect(await screen.findByRole('alert')).toHaveTextContent('Template not found')
    expect(screen.getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Pay & Download' })).not.toBeInTheDocument()
  })

  it("says 'Missing payment credentials from server.' when the answer lacks them", async () => {
    renderApp(CHECKOUT, options({ functions: { 'create-payment-intent': () => ({ data: intent({ clientSecret: '' }) }) } }))
    expect(await screen.findByText('Missing payment credentials from server.')).toBeInTheDocument()
  })

  it('tells a network failure apart, and tries again on request', async () => {
    const user = userEvent.setup()
    let calls = 0
    const { fake } = renderApp(
      CHECKOUT,
      options({
        functions: {
          'create-payment-intent': () =>
            ++calls === 1 ? { error: { message: 'Failed to send a request to the Edge Function' } } : { data: intent() },
        },
      }),
    )
    expect(await screen.findByText('Network error during payment initialization.')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Try Again' }))
    expect(await screen.findByTestId('checkout-total')).toHaveTextContent('$19.00')
    expect(fake.callsTo('fn:create-payment-intent')).toHaveLength(2)
  })

  it("says 'Failed to initiate payment.' for a server error without text", async () => {
    renderApp(CHECKOUT, options({ functions: { 'create-payment-intent': () => ({ error: functionError(500, '') }) } }))
    expect(await screen.findByText('Failed to initiate payment.')).toBeInTheDocument()
  })

  it('on Stripe, reads the publishable key and says Stripe is not ready without one', async () => {
    const { fake } = renderApp(
      CHECKOUT,
      options({
        functions: { 'create-payment-intent': () => ({ data: intent({ provider: 'stripe', clientSecret: 'pi_1_secret_2', confirmUrl: undefined }) }) },
        appConfig: { stripePublishableKey: null },
      }),
    )
    const alert = await screen.findByText('Stripe is not ready. Please try again.')
    expect(alert).toHaveAttribute('role', 'alert')
    expect(fake.callsTo('app-config')).toHaveLength(1)
    // No simulated form on this path.
    expect(screen.queryByLabelText('Card number')).not.toBeInTheDocument()
    expect(within(alert.parentElement!).getByRole('button', { name: 'Try Again' })).toBeInTheDocument()
  })

  it("sends a free template's checkout to the template's page, without asking for a payment", async () => {
    const { fake, router } = renderApp('/checkout?templateId=t-planner&buyerEmail=buyer%40example.com', options())
    expect(await screen.findByRole('button', { name: 'Download Free' }, { timeout: 5000 })).toBeInTheDocument()
    expect(here(router)).toBe('/template/t-planner')
    expect(screen.queryByText(/create-free-order/)).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Try Again' })).not.toBeInTheDocument()
    expect(fake.callsTo('fn:create-payment-intent')).toHaveLength(0)
  }, 15000)
})
