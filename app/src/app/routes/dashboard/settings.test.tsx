import { describe, expect, it, vi } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, type ApiHandler, type Row } from '@/testing/fake-supabase'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'
import { browser } from '@/lib/browser'
import { useNavMemory } from '@/lib/nav-memory'

/** The tables, with Maya's payment account (kept apart from her public profile) when given. */
function tables(account: Row | null = null): Record<string, Row[]> {
  return marketplace({
    profiles: PROFILES,
    payment_accounts: account ? [{ user_id: MAYA.id, stripe_account_issue: false, ...account }] : [],
  })
}

function setup(path: string, api: Record<string, ApiHandler> = {}, account: Row | null = null) {
  const fake = new FakeSupabase({ tables: tables(account), signedInAs: MAYA, api })
  return renderApp(path, fake)
}

const payment = () => screen.getByRole('region', { name: 'Payment Profile' })

describe('dashboard settings: payment profile', () => {
  it('connects: asks the server for the onboarding link and leaves for it', async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {})
    const user = userEvent.setup()
    const { fake } = setup('/dashboard/settings', {
      '/stripe/connect': () => ({ body: { url: 'https://connect.example/onboarding/acct_9' } }),
    })
    await screen.findByRole('region', { name: 'Payment Profile' })
    expect(within(payment()).getByText('Not connected')).toBeInTheDocument()
    useNavMemory.getState().remember('/dashboard/settings')
    await user.click(within(payment()).getByRole('button', { name: 'Connect with Stripe' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://connect.example/onboarding/acct_9'))
    expect(fake.callsTo('api:/stripe/connect')).toEqual([
      { table: 'api:/stripe/connect', op: 'post', payload: { userId: MAYA.id }, filters: [] },
    ])
    // The return URL (with its stripe_account) must not be replaced by a remembered path.
    expect(useNavMemory.getState().lastPath).toBeNull()
    expect(within(payment()).queryByRole('alert')).not.toBeInTheDocument()
  })

  it("shows the spec's alert when connecting fails", async () => {
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {})
    const user = userEvent.setup()
    setup('/dashboard/settings', { '/stripe/connect': () => ({ status: 502, body: { error: 'provider down' } }) })
    await user.click(await screen.findByRole('button', { name: 'Connect with Stripe' }))
    expect(await within(payment()).findByRole('alert')).toHaveTextContent('Something went wrong. Please try again.')
    expect(assign).not.toHaveBeenCalled()
  })

  it('asks to sign in when the server says the session is missing', async () => {
    vi.spyOn(browser, 'assign').mockImplementation(() => {})
    const user = userEvent.setup()
    setup('/dashboard/settings', {
      '/stripe/connect': () => ({ status: 401, body: { error: 'You must be logged in to connect your Stripe account.' } }),
    })
    await user.click(await screen.findByRole('button', { name: 'Connect with Stripe' }))
    expect(await within(payment()).findByRole('alert')).toHaveTextContent('You must be logged in to connect your Stripe account.')
  })

  it('back from onboarding: stores the account, removes stripe_account from the URL and shows it connected', async () => {
    const fake: FakeSupabase = new FakeSupabase({
      tables: tables(),
      signedInAs: MAYA,
      api: {
        '/user/update-stripe-account': (body) => {
          fake.tables.payment_accounts.push({ user_id: body.userId, stripe_account_id: body.stripeAccountId, stripe_account_issue: false })
          return { body: { success: true, stripeAccountId: body.stripeAccountId, ready: true } }
        },
      },
    })
    const { router } = renderApp('/dashboard/settings?stripe_account=acct_sim_42', fake)
    await waitFor(() => expect(here(router)).toBe('/dashboard/settings'))
    expect(fake.callsTo('api:/user/update-stripe-account')).toEqual([
      {
        table: 'api:/user/update-stripe-account',
        op: 'post',
        payload: { userId: MAYA.id, stripeAccountId: 'acct_sim_42' },
        filters: [],
      },
    ])
    expect(await within(payment()).findByText('Connected')).toBeInTheDocument()
    expect(within(payment()).getByTestId('payment-connected')).toHaveTextContent('acct_sim_42')
    expect(within(payment()).queryByRole('alert')).not.toBeInTheDocument()
  })

  it('back from onboarding with a refusal: the alert, and the parameter still removed', async () => {
    const { fake, router } = setup('/dashboard/settings?stripe_account=acct_other&tab=x', {
      '/user/update-stripe-account': () => ({ status: 403, body: { error: 'Could not update Stripe account. Please try again.' } }),
    })
    expect(await within(await screen.findByRole('region', { name: 'Payment Profile' })).findByRole('alert')).toHaveTextContent(
      'Could not update Stripe account. Please try again.',
    )
    await waitFor(() => expect(here(router)).toBe('/dashboard/settings?tab=x'))
    expect(fake.callsTo('api:/user/update-stripe-account')).toHaveLength(1)
    expect(within(payment()).getByText('Not connected')).toBeInTheDocument()
  })

  it('shows a connected account and its issue flag as a warning', async () => {
    setup('/dashboard/settings', {}, { stripe_account_id: 'acct_77', stripe_account_issue: true })
    expect(await within(await screen.findByRole('region', { name: 'Payment Profile' })).findByText('Connected')).toBeInTheDocument()
    expect(within(payment()).getByTestId('payment-connected')).toHaveTextContent('Your Stripe account acct_77 is connected.')
    expect(within(payment()).getByTestId('payment-issue')).toHaveTextContent('Your payment account needs attention')
    expect(within(payment()).getByRole('button', { name: 'Finish Stripe setup' })).toBeEnabled()
    expect(within(payment()).queryByRole('button', { name: 'Connect with Stripe' })).not.toBeInTheDocument()
  })
})

describe('dashboard settings: the other cards', () => {
  it('shows the locked Premium crypto teaser with every control disabled', async () => {
    setup('/dashboard/settings')
    const crypto = await screen.findByRole('region', { name: 'Crypto Payments' })
    expect(within(crypto).getByText('Premium')).toBeInTheDocument()
    const wallets = within(crypto).getAllByRole('radio')
    expect(wallets.map((w) => w.getAttribute('value'))).toEqual(['MetaMask', 'Coinbase Wallet', 'Trust Wallet', 'Ledger'])
    for (const w of wallets) expect(w).toBeDisabled()
    const currency = within(crypto).getByLabelText('Currency')
    expect(currency).toBeDisabled()
    expect(within(currency).getAllByRole('option').map((o) => o.textContent)).toEqual(['BTC', 'ETH'])
    const schedule = within(crypto).getByLabelText('Payout schedule')
    expect(schedule).toBeDisabled()
    expect(within(schedule).getAllByRole('option').map((o) => o.textContent)).toEqual(['Weekly', 'Monthly', 'Quarterly'])
    expect(schedule).toHaveValue('Monthly')
    expect(within(crypto).getByLabelText('Wallet address')).toBeDisabled()
  })

  it('shows Order History as text and a Delete account button that does nothing', async () => {
    const user = userEvent.setup()
    const { fake, router } = setup('/dashboard/settings')
    const orders = await screen.findByRole('region', { name: 'Order History' })
    expect(within(orders).getByText(/Your purchases and sales will be listed here/)).toBeInTheDocument()
    const account = screen.getByRole('region', { name: 'Account Settings' })
    const before = fake.calls.length
    await user.click(within(account).getByRole('button', { name: 'Delete account' }))
    expect(fake.calls.slice(before).filter((c) => c.op !== 'select')).toEqual([])
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/settings')
  })
})
