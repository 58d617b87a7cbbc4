// Settings → Two-factor authentication: enrolling a TOTP authenticator app
// (QR code, secret, confirming code), listing and removing factors.
import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { FakeSupabase } from '@/testing/fake-supabase'
import { FAKE_QR_SVG, FAKE_TOTP_SECRET, FakeMfa, type FakeFactor } from '@/testing/fake-mfa'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'

function setup(options: { factors?: FakeFactor[]; aal2?: boolean } = {}) {
  const fake = new FakeSupabase({
    tables: marketplace({ profiles: PROFILES, payment_accounts: [] }),
    signedInAs: { ...MAYA, factors: options.factors },
  })
  if (options.aal2) fake.mfa.elevate()
  return renderApp('/dashboard/settings', fake)
}

const section = () => screen.findByRole('region', { name: 'Two-factor authentication' })

describe('settings: two-factor authentication', () => {
  it('enrolls an authenticator app: QR code and secret, a wrong code refused, the right one enables it', async () => {
    const user = userEvent.setup()
    const { fake } = setup()
    const region = await section()
    expect(await within(region).findByText('Two-factor authentication is off.')).toBeInTheDocument()
    await user.click(within(region).getByRole('button', { name: 'Set up authenticator app' }))

    const qr = await within(region).findByRole('img', { name: 'QR code for your authenticator app' })
    // The SVG escaped, so that its '#' does not end the data: URL.
    expect(qr.getAttribute('src')).toBe(`data:image/svg+xml;utf-8,${encodeURIComponent(FAKE_QR_SVG)}`)
    expect(qr.getAttribute('src')).not.toContain('#')
    expect(within(region).getByLabelText('Secret key')).toHaveTextContent(FAKE_TOTP_SECRET)
    expect(fake.mfa.api.enroll).toHaveBeenCalledWith({ factorType: 'totp', friendlyName: 'Authenticator app' })

    await user.type(within(region).getByLabelText('6-digit code'), '12345')
    await user.click(within(region).getByRole('button', { name: 'Verify and enable' }))
    expect(within(region).getByText('Enter the 6-digit code from your authenticator app')).toBeInTheDocument()
    expect(fake.mfa.api.challengeAndVerify).not.toHaveBeenCalled()

    await user.clear(within(region).getByLabelText('6-digit code'))
    await user.type(within(region).getByLabelText('6-digit code'), '000000')
    await user.click(within(region).getByRole('button', { name: 'Verify and enable' }))
    await waitFor(() => expect(screen.getAllByText('Invalid TOTP code entered')).toHaveLength(2))
    expect(fake.mfa.factorsOf(MAYA.id)[0].status).toBe('unverified')

    await user.clear(within(region).getByLabelText('6-digit code'))
    await user.type(within(region).getByLabelText('6-digit code'), '123456')
    await user.click(within(region).getByRole('button', { name: 'Verify and enable' }))
    expect(await screen.findByText('Two-factor authentication enabled')).toBeInTheDocument()
    expect(await within(region).findByText('Two-factor authentication is on.')).toBeInTheDocument()
    const list = within(region).getByRole('list', { name: 'Authenticator apps' })
    expect(within(list).getByText('Authenticator app')).toBeInTheDocument()
    expect(within(region).queryByRole('img', { name: 'QR code for your authenticator app' })).not.toBeInTheDocument()
    expect(fake.mfa.factorsOf(MAYA.id).map((f) => f.status)).toEqual(['verified'])
    expect(fake.mfa.level).toBe('aal2')
  })

  it('names the factor as asked and shows the server refusing a name already taken', async () => {
    const user = userEvent.setup()
    const { fake } = setup({ factors: [FakeMfa.verified('f-1', 'Work phone')], aal2: true })
    const region = await section()
    await within(region).findByText('Work phone')
    await user.clear(within(region).getByLabelText('Authenticator name'))
    await user.type(within(region).getByLabelText('Authenticator name'), 'Work phone')
    await user.click(within(region).getByRole('button', { name: 'Set up authenticator app' }))
    expect(
      await screen.findByText('A factor with the friendly name "Work phone" for this user already exists'),
    ).toBeInTheDocument()
    expect(within(region).queryByRole('img', { name: 'QR code for your authenticator app' })).not.toBeInTheDocument()
    expect(fake.mfa.api.enroll).toHaveBeenCalledWith({ factorType: 'totp', friendlyName: 'Work phone' })
  })

  it('removes an unfinished enrolment before starting again, and on Cancel', async () => {
    const user = userEvent.setup()
    const stale = { ...FakeMfa.verified('f-stale'), status: 'unverified' as const }
    const { fake } = setup({ factors: [stale] })
    const region = await section()
    // An unverified factor is not an authenticator in use.
    expect(await within(region).findByText('Two-factor authentication is off.')).toBeInTheDocument()
    await user.click(within(region).getByRole('button', { name: 'Set up authenticator app' }))
    await within(region).findByRole('img', { name: 'QR code for your authenticator app' })
    expect(fake.mfa.api.unenroll).toHaveBeenCalledWith({ factorId: 'f-stale' })
    const started = fake.mfa.factorsOf(MAYA.id)
    expect(started).toHaveLength(1)
    const startedId = started[0].id
    expect(startedId).not.toBe('f-stale')

    await user.click(within(region).getByRole('button', { name: 'Cancel' }))
    await within(region).findByRole('button', { name: 'Set up authenticator app' })
    expect(fake.mfa.api.unenroll).toHaveBeenLastCalledWith({ factorId: startedId })
    expect(fake.mfa.factorsOf(MAYA.id)).toEqual([])
  })

  it('removes a factor after a confirmation when the session is aal2', async () => {
    const user = userEvent.setup()
    const { fake } = setup({ factors: [FakeMfa.verified('f-1', 'Work phone')], aal2: true })
    const region = await section()
    await user.click(await within(region).findByRole('button', { name: 'Remove Work phone' }))
    const dialog = await screen.findByRole('dialog', { name: 'Remove Work phone?' })
    expect(within(dialog).queryByLabelText('6-digit code')).not.toBeInTheDocument()
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }))
    expect(await screen.findByText('Authenticator app removed')).toBeInTheDocument()
    expect(await within(region).findByText('Two-factor authentication is off.')).toBeInTheDocument()
    expect(fake.mfa.factorsOf(MAYA.id)).toEqual([])
    expect(fake.mfa.api.challengeAndVerify).not.toHaveBeenCalled()
  })

  it('asks an aal1 session for a code before removing a verified factor (added elsewhere)', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ tables: marketplace({ profiles: PROFILES, payment_accounts: [] }), signedInAs: MAYA })
    // Enrolled from another device after this session began: the session's
    // user does not show it, the server does.
    fake.mfa.seed(MAYA.id, [FakeMfa.verified('f-other', 'Tablet')])
    renderApp('/dashboard/settings', fake)
    const region = await section()
    await user.click(await within(region).findByRole('button', { name: 'Remove Tablet' }))
    const dialog = await screen.findByRole('dialog', { name: 'Remove Tablet?' })
    expect(within(dialog).getByText('Enter a code from your authenticator app to confirm it is you.')).toBeInTheDocument()

    await user.type(within(dialog).getByLabelText('6-digit code'), '999999')
    await user.click(within(dialog).getByRole('button', { name: 'Verify and remove' }))
    await waitFor(() => expect(screen.getAllByText('Invalid TOTP code entered').length).toBeGreaterThan(0))
    expect(fake.mfa.api.unenroll).not.toHaveBeenCalled()
    expect(fake.mfa.factorsOf(MAYA.id)).toHaveLength(1)

    await user.clear(within(dialog).getByLabelText('6-digit code'))
    await user.type(within(dialog).getByLabelText('6-digit code'), '123456')
    await user.click(within(dialog).getByRole('button', { name: 'Verify and remove' }))
    expect(await screen.findByText('Authenticator app removed')).toBeInTheDocument()
    expect(fake.mfa.api.unenroll).toHaveBeenCalledWith({ factorId: 'f-other' })
    expect(fake.mfa.factorsOf(MAYA.id)).toEqual([])
  })

  it("shows the server's refusal when removal fails", async () => {
    const user = userEvent.setup()
    const { fake } = setup({ factors: [FakeMfa.verified('f-1', 'Work phone')], aal2: true })
    fake.mfa.api.unenroll.mockResolvedValueOnce({
      data: null,
      error: { message: 'AAL2 required to unenroll verified factor', code: 'insufficient_aal', status: 422 },
    })
    const region = await section()
    await user.click(await within(region).findByRole('button', { name: 'Remove Work phone' }))
    const dialog = await screen.findByRole('dialog', { name: 'Remove Work phone?' })
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }))
    expect(await screen.findByText('AAL2 required to unenroll verified factor')).toBeInTheDocument()
    expect(within(region).getByText('Work phone')).toBeInTheDocument()
  })
})
