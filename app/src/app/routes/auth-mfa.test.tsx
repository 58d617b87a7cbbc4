// Sign-in with a second factor: a session at aal1 whose user has a verified
// TOTP factor is not signed in until the code is verified.
import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase } from '@/testing/fake-supabase'
import { FakeMfa } from '@/testing/fake-mfa'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'

const MAYA_2FA = { ...MAYA, factors: [FakeMfa.verified('factor-maya', 'Phone app')] }

function fake(options: { signedIn?: boolean; aal2?: boolean } = {}) {
  const f = new FakeSupabase({
    tables: marketplace({ profiles: PROFILES }),
    users: [MAYA_2FA],
    signedInAs: options.signedIn ? MAYA_2FA : undefined,
  })
  if (options.aal2) f.mfa.elevate()
  return f
}

async function signInWithPassword(user: ReturnType<typeof userEvent.setup>) {
  await user.type(await screen.findByLabelText('Email'), MAYA.email)
  await user.type(screen.getByLabelText('Password'), MAYA.password)
  await user.click(screen.getByRole('button', { name: 'Sign In' }))
}

const codeScreen = () => screen.findByRole('heading', { level: 1, name: 'Two-factor authentication' })

describe('sign-in with two-factor authentication', () => {
  it('asks for the code after the password; a wrong code shows the server message, the right one goes to the target', async () => {
    const user = userEvent.setup()
    const f = fake()
    const { router } = renderApp('/auth?mode=sign-in&redirect=%2Fdashboard%2Fsettings', f)
    await signInWithPassword(user)
    await codeScreen()
    // The factor's name alone (issue 44: not "Authenticator: Authenticator app").
    expect(await screen.findByTestId('mfa-factor-name')).toHaveTextContent(/^Phone app$/)
    // Not signed in yet: no greeting, no account menu, still on /auth.
    expect(screen.queryByText('Welcome back!')).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Account menu' })).not.toBeInTheDocument()
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdashboard%2Fsettings')

    await user.type(screen.getByLabelText('6-digit code'), '654321')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    // Inline and as the error toast.
    await waitFor(() => expect(screen.getAllByText('Invalid TOTP code entered')).toHaveLength(2))
    expect(screen.getByLabelText('6-digit code')).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByLabelText('6-digit code')).toHaveValue('')
    expect(f.mfa.level).toBe('aal1')
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdashboard%2Fsettings')

    await user.type(screen.getByLabelText('6-digit code'), '123 456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    expect(await screen.findByText('Welcome back!')).toBeInTheDocument()
    await waitFor(() => expect(here(router)).toBe('/dashboard/settings'))
    expect(f.mfa.level).toBe('aal2')
    expect(f.mfa.api.challengeAndVerify).toHaveBeenLastCalledWith({ factorId: 'factor-maya', code: '123456' })
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument()
  })

  it('keeps a code the server never saw (no answer), to send again (issue 24)', async () => {
    const user = userEvent.setup()
    const f = fake()
    const { router } = renderApp('/auth?mode=sign-in&redirect=%2Fdashboard%2Fsettings', f)
    await signInWithPassword(user)
    await codeScreen()
    // What auth-js answers when its fetch failed.
    const unreached = Object.assign(new Error('Failed to fetch'), { name: 'AuthRetryableFetchError', status: 0, code: '' })
    f.mfa.api.challengeAndVerify.mockImplementationOnce(async () => ({ data: null, error: unreached }))
    await user.type(await screen.findByLabelText('6-digit code'), '123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(screen.getAllByText("We couldn't reach the server. Check your connection and try again.")).toHaveLength(2))
    expect(screen.getByLabelText('6-digit code')).toHaveValue('123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/settings'))
  })

  it('checks the code is six digits before asking the server', async () => {
    const user = userEvent.setup()
    const f = fake()
    renderApp('/auth', f)
    await signInWithPassword(user)
    await codeScreen()
    await user.click(await screen.findByRole('button', { name: 'Verify' }))
    expect(screen.getByText('Code is required')).toBeInTheDocument()
    await user.type(screen.getByLabelText('6-digit code'), '12a45')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    expect(screen.getByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument()
    expect(f.mfa.api.challengeAndVerify).not.toHaveBeenCalled()
  })

  it('names a factor without a friendly name "Authenticator app", once', async () => {
    const unnamed = { ...MAYA, factors: [FakeMfa.verified('factor-maya', '')] }
    const f = new FakeSupabase({ tables: marketplace({ profiles: PROFILES }), users: [unnamed], signedInAs: unnamed })
    renderApp('/auth', f)
    expect(await screen.findByTestId('mfa-factor-name')).toHaveTextContent(/^Authenticator app$/)
    expect(screen.queryByText(/Authenticator:/)).not.toBeInTheDocument()
  })

  it('signs out from the code screen, back to the sign-in form', async () => {
    const user = userEvent.setup()
    const f = fake()
    renderApp('/auth', f)
    await signInWithPassword(user)
    await codeScreen()
    await user.click(screen.getByRole('button', { name: 'Sign out' }))
    expect(await screen.findByLabelText('Email')).toBeInTheDocument()
    expect(screen.queryByRole('heading', { name: 'Two-factor authentication' })).not.toBeInTheDocument()
    expect(f.auth.signOut).toHaveBeenCalledTimes(1)
    expect(f.session).toBeNull()
  })

  it('keeps guarded routes closed to a session that owes its second factor', async () => {
    const f = fake({ signedIn: true })
    const { router } = renderApp('/dashboard', f)
    await codeScreen()
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdashboard')
    expect(screen.queryByRole('button', { name: 'Account menu' })).not.toBeInTheDocument()
  })

  it('sends such a session from any page (a provider or magic link return) to the code screen, and back after the code', async () => {
    const user = userEvent.setup()
    const f = fake({ signedIn: true })
    const { router } = renderApp('/creators', f)
    await codeScreen()
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fcreators')
    await user.type(await screen.findByLabelText('6-digit code'), '123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    await waitFor(() => expect(here(router)).toBe('/creators'))
    expect(await screen.findByRole('button', { name: 'Account menu' })).toBeInTheDocument()
  })

  it('lets an aal2 session with a factor straight in', async () => {
    const f = fake({ signedIn: true, aal2: true })
    const { router } = renderApp('/dashboard/settings', f)
    expect(await screen.findByRole('heading', { level: 1, name: 'Settings' })).toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/settings')
    expect(screen.queryByRole('heading', { name: 'Two-factor authentication', level: 1 })).not.toBeInTheDocument()
  })

  it('signs a user without factors in at once, with no code screen', async () => {
    const user = userEvent.setup()
    const f = new FakeSupabase({ tables: marketplace({ profiles: PROFILES }), users: [MAYA] })
    const { router } = renderApp('/auth?redirect=%2Fcreators', f)
    await signInWithPassword(user)
    expect(await screen.findByText('Welcome back!')).toBeInTheDocument()
    await waitFor(() => expect(here(router)).toBe('/creators'))
    expect(f.mfa.api.challengeAndVerify).not.toHaveBeenCalled()
  })
})
