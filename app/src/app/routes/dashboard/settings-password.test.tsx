// Settings → Change password (issue 44, item 1): a new password and its
// confirmation through auth.updateUser; the server's refusals in its words;
// an account whose session must pass its second factor gives the code in
// place; a server that requires reauthentication gets the mailed code.
import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { FakeSupabase } from '@/testing/fake-supabase'
import { FakeMfa } from '@/testing/fake-mfa'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'

function setup() {
  const fake = new FakeSupabase({
    tables: marketplace({ profiles: PROFILES, payment_accounts: [] }),
    users: [{ ...MAYA }],
    signedInAs: MAYA,
  })
  return renderApp('/dashboard/settings', fake)
}

const region = () => screen.findByRole('region', { name: 'Change password' })

async function fill(user: ReturnType<typeof userEvent.setup>, password: string, confirm = password) {
  const card = await region()
  await user.type(within(card).getByLabelText('New password'), password)
  await user.type(within(card).getByLabelText('Confirm new password'), confirm)
  await user.click(within(card).getByRole('button', { name: 'Update password' }))
  return card
}

describe('settings: change password', () => {
  it('sets the new password, after checking the confirmation', async () => {
    const user = userEvent.setup()
    const { fake } = setup()
    const card = await fill(user, 'a-new-password', 'a-new-passwrod')
    expect(within(card).getByText('The passwords do not match')).toBeInTheDocument()
    expect(fake.auth.updateUser).not.toHaveBeenCalled()

    await user.clear(within(card).getByLabelText('Confirm new password'))
    await user.type(within(card).getByLabelText('Confirm new password'), 'a-new-password')
    await user.click(within(card).getByRole('button', { name: 'Update password' }))
    expect(await screen.findByText('Password updated')).toBeInTheDocument()
    expect(fake.auth.updateUser).toHaveBeenCalledWith({ password: 'a-new-password' })
    expect(fake.users[0].password).toBe('a-new-password')
    // The fields are emptied for the next time.
    expect(within(card).getByLabelText('New password')).toHaveValue('')
  })

  it('shows the server’s refusal of the same password', async () => {
    const user = userEvent.setup()
    const { fake } = setup()
    const card = await fill(user, MAYA.password)
    await waitFor(() => expect(screen.getAllByText('New password should be different from the old password.')).toHaveLength(2))
    expect(within(card).getByLabelText('New password')).toHaveAttribute('aria-invalid', 'true')
    expect(fake.users[0].password).toBe(MAYA.password)
  })

  it('asks for the authenticator code in place when the session must pass its second factor', async () => {
    const user = userEvent.setup()
    const { fake } = setup()
    // A factor added from another device: this session is still at aal1.
    fake.mfa.seed('u-maya', [FakeMfa.verified('factor-maya', 'Phone app')])
    const card = await fill(user, 'a-new-password')
    expect(await within(card).findByText(/enter a code from your authenticator app to change the password/)).toBeInTheDocument()
    expect(fake.users[0].password).toBe(MAYA.password)

    await user.type(await within(card).findByLabelText('6-digit code'), '000000')
    await user.click(within(card).getByRole('button', { name: 'Verify and update' }))
    await waitFor(() => expect(screen.getAllByText('Invalid TOTP code entered')).toHaveLength(2))
    expect(fake.users[0].password).toBe(MAYA.password)

    await user.type(within(card).getByLabelText('6-digit code'), '123456')
    await user.click(within(card).getByRole('button', { name: 'Verify and update' }))
    expect(await screen.findByText('Password updated')).toBeInTheDocument()
    expect(fake.mfa.level).toBe('aal2')
    expect(fake.users[0].password).toBe('a-new-password')
  })

  it('sends and takes the reauthentication code when the server requires it', async () => {
    const user = userEvent.setup()
    const { fake } = setup()
    fake.passwords.requireReauthentication = true
    const card = await fill(user, 'a-new-password')
    expect(await within(card).findByText(/We e-mailed you a code to confirm it is you/)).toBeInTheDocument()
    expect(fake.auth.reauthenticate).toHaveBeenCalledTimes(1)

    await user.type(within(card).getByLabelText('Code from the e-mail'), '111111')
    await user.click(within(card).getByRole('button', { name: 'Confirm and update' }))
    await waitFor(() => expect(screen.getAllByText('Nonce has expired or is invalid')).toHaveLength(2))

    await user.clear(within(card).getByLabelText('Code from the e-mail'))
    await user.type(within(card).getByLabelText('Code from the e-mail'), '654321')
    await user.click(within(card).getByRole('button', { name: 'Confirm and update' }))
    expect(await screen.findByText('Password updated')).toBeInTheDocument()
    expect(fake.auth.updateUser).toHaveBeenLastCalledWith({ password: 'a-new-password', nonce: '654321' })
    expect(fake.users[0].password).toBe('a-new-password')
  })
})
