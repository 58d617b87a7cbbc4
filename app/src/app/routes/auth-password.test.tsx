// Password recovery and e-mail codes on /auth (issue 44, item 1): "Forgot
// password?" asks for the reset mail (the same answer with or without an
// account, the server's 429 message shown), the recovery link or code lands
// on the new-password screen (after the second factor for an account with
// one), and a sign-up that needs its address confirmed offers the mail's
// code and lands on the confirmed page.
import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase } from '@/testing/fake-supabase'
import { FakeMfa } from '@/testing/fake-mfa'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'

function backend(options: { signedIn?: boolean; factors?: boolean } = {}) {
  const maya = { ...MAYA, factors: options.factors ? [FakeMfa.verified('factor-maya', 'Phone app')] : undefined }
  return new FakeSupabase({
    tables: marketplace({ profiles: PROFILES }),
    users: [maya],
    signedInAs: options.signedIn ? maya : undefined,
  })
}

async function askForReset(user: ReturnType<typeof userEvent.setup>, email: string) {
  await user.click(await screen.findByRole('link', { name: 'Forgot password?' }))
  expect(await screen.findByRole('heading', { name: 'Reset your password' })).toBeInTheDocument()
  await user.type(screen.getByLabelText('Email'), email)
  await user.click(screen.getByRole('button', { name: 'Send reset link' }))
}

const NEUTRAL = 'If an account exists for that address, we sent a link to reset the password. It may take a minute to arrive.'

describe('forgot password', () => {
  it('sends the reset mail with its link to the new-password screen, and says the same for any address', async () => {
    const user = userEvent.setup()
    const f = backend()
    const { router } = renderApp('/auth', f)
    await askForReset(user, MAYA.email)
    expect(await screen.findByText(NEUTRAL)).toBeInTheDocument()
    expect(here(router)).toBe('/auth?mode=forgot')
    expect(f.auth.resetPasswordForEmail).toHaveBeenCalledWith(MAYA.email, {
      redirectTo: `${window.location.origin}/auth/reset-password`,
    })
    expect(f.passwords.mails).toEqual([expect.objectContaining({ email: MAYA.email, type: 'recovery' })])

    // An address without an account: the same words, and no mail.
    await user.click(screen.getByRole('button', { name: 'Send it again' }))
    await user.clear(screen.getByLabelText('Email'))
    await user.type(screen.getByLabelText('Email'), 'nobody@example.com')
    await user.click(screen.getByRole('button', { name: 'Send reset link' }))
    expect(await screen.findByText(NEUTRAL)).toBeInTheDocument()
    expect(f.passwords.mails).toHaveLength(1)
  })

  it('checks the address first, and shows the server’s rate-limit message', async () => {
    const user = userEvent.setup()
    const f = backend()
    renderApp('/auth?mode=forgot', f)
    await user.click(await screen.findByRole('button', { name: 'Send reset link' }))
    expect(screen.getByText('Email is required')).toBeInTheDocument()
    expect(f.auth.resetPasswordForEmail).not.toHaveBeenCalled()

    f.passwords.rateLimited = true
    await user.type(screen.getByLabelText('Email'), MAYA.email)
    await user.click(screen.getByRole('button', { name: 'Send reset link' }))
    const message = 'For security purposes, you can only request this after 60 seconds.'
    await waitFor(() => expect(screen.getAllByText(message)).toHaveLength(2))
    expect(screen.queryByText(NEUTRAL)).not.toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveValue(MAYA.email)
  })

  it('takes the code from the mail instead of the link, then sets the new password', async () => {
    const user = userEvent.setup()
    const f = backend()
    const { router } = renderApp('/auth', f)
    await askForReset(user, MAYA.email)
    await screen.findByText(NEUTRAL)
    await user.type(screen.getByLabelText('Code from the e-mail'), '111111')
    await user.click(screen.getByRole('button', { name: 'Verify code' }))
    await waitFor(() => expect(screen.getAllByText('Token has expired or is invalid')).toHaveLength(2))

    await user.type(screen.getByLabelText('Code from the e-mail'), '654 321')
    await user.click(screen.getByRole('button', { name: 'Verify code' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Set a new password' })).toBeInTheDocument()
    expect(here(router)).toBe('/auth/reset-password')
    expect(f.auth.verifyOtp).toHaveBeenCalledWith({ email: MAYA.email, token: '654321', type: 'recovery' })

    await user.type(screen.getByLabelText('New password'), 'brand-new-password')
    await user.type(screen.getByLabelText('Confirm new password'), 'brand-new-password')
    await user.click(screen.getByRole('button', { name: 'Set new password' }))
    expect(await screen.findByText('Password updated')).toBeInTheDocument()
    await waitFor(() => expect(here(router)).toBe('/dashboard'))
    expect(f.users[0].password).toBe('brand-new-password')
  })
})

describe('the new-password screen', () => {
  it('checks the two fields, and shows the server’s refusal', async () => {
    const user = userEvent.setup()
    const f = backend({ signedIn: true })
    renderApp('/auth/reset-password', f)
    await screen.findByRole('heading', { level: 1, name: 'Set a new password' })
    await user.type(screen.getByLabelText('New password'), 'short')
    await user.type(screen.getByLabelText('Confirm new password'), 'other')
    await user.click(screen.getByRole('button', { name: 'Set new password' }))
    expect(screen.getByText('Password should be at least 6 characters.')).toBeInTheDocument()
    expect(screen.getByText('The passwords do not match')).toBeInTheDocument()
    expect(f.auth.updateUser).not.toHaveBeenCalled()

    // The old password again: the server's words.
    await user.clear(screen.getByLabelText('New password'))
    await user.clear(screen.getByLabelText('Confirm new password'))
    await user.type(screen.getByLabelText('New password'), MAYA.password)
    await user.type(screen.getByLabelText('Confirm new password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Set new password' }))
    await waitFor(() => expect(screen.getAllByText('New password should be different from the old password.')).toHaveLength(2))
    expect(screen.getByLabelText('New password')).toHaveAttribute('aria-invalid', 'true')
  })

  it('says the link expired when no session came with it', async () => {
    renderApp('/auth/reset-password', backend())
    expect(await screen.findByRole('heading', { level: 1, name: 'This link has expired' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Request a new link' })).toHaveAttribute('href', '/auth?mode=forgot')
  })

  it('asks an account with a factor for its code first, then sets the password', async () => {
    const user = userEvent.setup()
    const f = backend({ signedIn: true, factors: true })
    const { router } = renderApp('/auth/reset-password', f)
    expect(await screen.findByRole('heading', { level: 1, name: 'Two-factor authentication' })).toBeInTheDocument()
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fauth%2Freset-password')
    await user.type(await screen.findByLabelText('6-digit code'), '123456')
    await user.click(screen.getByRole('button', { name: 'Verify' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Set a new password' })).toBeInTheDocument()
    await user.type(screen.getByLabelText('New password'), 'brand-new-password')
    await user.type(screen.getByLabelText('Confirm new password'), 'brand-new-password')
    await user.click(screen.getByRole('button', { name: 'Set new password' }))
    expect(await screen.findByText('Password updated')).toBeInTheDocument()
    expect(f.users[0].password).toBe('brand-new-password')
  })
})

describe('confirming the e-mail', () => {
  it('offers the confirmation code after sign-up and lands on the confirmed page', async () => {
    const user = userEvent.setup()
    const f = new FakeSupabase({ tables: marketplace({ profiles: PROFILES }) })
    const { router } = renderApp('/auth?mode=sign-up', f)
    await user.type(await screen.findByLabelText('Display name'), 'New Person')
    await user.type(screen.getByLabelText('Email'), 'new@example.com')
    await user.type(screen.getByLabelText('Password'), 'long-password')
    await user.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText('Confirm your e-mail')).toBeInTheDocument()
    expect(f.auth.signUp).toHaveBeenCalledWith(
      expect.objectContaining({ options: expect.objectContaining({ emailRedirectTo: `${window.location.origin}/auth/confirmed` }) }),
    )
    // The mail again; asked too soon, the server's words.
    await user.click(screen.getByRole('button', { name: 'Send the e-mail again' }))
    expect(await screen.findByText('E-mail sent')).toBeInTheDocument()
    expect(f.auth.resend).toHaveBeenCalledWith({
      type: 'signup',
      email: 'new@example.com',
      options: { emailRedirectTo: `${window.location.origin}/auth/confirmed` },
    })
    expect(f.passwords.mails.filter((m) => m.type === 'signup')).toHaveLength(2)
    f.passwords.rateLimited = true
    await user.click(screen.getByRole('button', { name: 'Send the e-mail again' }))
    expect(await screen.findByText('For security purposes, you can only request this after 60 seconds.')).toBeInTheDocument()

    await user.type(screen.getByLabelText('Code from the e-mail'), '12')
    await user.click(screen.getByRole('button', { name: 'Verify code' }))
    expect(screen.getByText('Enter the 6-digit code from the e-mail')).toBeInTheDocument()
    expect(f.auth.verifyOtp).not.toHaveBeenCalled()

    await user.clear(screen.getByLabelText('Code from the e-mail'))
    await user.type(screen.getByLabelText('Code from the e-mail'), '654321')
    await user.click(screen.getByRole('button', { name: 'Verify code' }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Email confirmed' })).toBeInTheDocument()
    expect(screen.getByText('Your account is ready.')).toBeInTheDocument()
    expect(here(router)).toBe('/auth/confirmed')
    expect(f.auth.verifyOtp).toHaveBeenCalledWith({ email: 'new@example.com', token: '654321', type: 'signup' })
  })

  it('says so when the confirmation link brought no session', async () => {
    renderApp('/auth/confirmed', backend())
    expect(await screen.findByRole('heading', { level: 1, name: "We couldn't confirm your e-mail" })).toBeInTheDocument()
  })

  it('shows the confirmed page to the account the link signed in', async () => {
    renderApp('/auth/confirmed', backend({ signedIn: true }))
    expect(await screen.findByRole('heading', { level: 1, name: 'Email confirmed' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Go to dashboard' })).toHaveAttribute('href', '/dashboard')
  })
})
