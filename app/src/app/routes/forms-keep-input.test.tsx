// Issue 24: a submit that fails (the server out of reach, or failing) leaves
// every field as typed, says so, and the same submit sent again succeeds.
import { describe, expect, it, vi } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, UNREACHABLE, type FakeOptions } from '@/testing/fake-supabase'
import { marketplace, MAYA, LEO } from '@/testing/fixtures'
import { browser } from '@/lib/browser'

const UNREACHED_TEXT = "We couldn't reach the server. Check your connection and try again."

/** What auth-js answers when its fetch failed. */
function authUnreached() {
  return Object.assign(new Error('Failed to fetch'), { name: 'AuthRetryableFetchError', status: 0 })
}

describe('forms keep what was typed when the submit fails', () => {
  it('sign in: the e-mail and password stay, the toast says the server was not reached, and signing in again works', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ tables: marketplace(), users: [MAYA] })
    fake.auth.signInWithPassword.mockImplementationOnce(async () => ({ data: { user: null, session: null }, error: authUnreached() }))
    const { router } = renderApp('/auth?mode=sign-in&redirect=%2Fdiscover', fake)
    await user.type(await screen.findByLabelText('Email'), MAYA.email)
    await user.type(screen.getByLabelText('Password'), MAYA.password)
    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    expect(await screen.findByText(UNREACHED_TEXT)).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveValue(MAYA.email)
    expect(screen.getByLabelText('Password')).toHaveValue(MAYA.password)
    expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdiscover')

    await user.click(screen.getByRole('button', { name: 'Sign In' }))
    await waitFor(() => expect(here(router)).toBe('/discover'))
  })

  it('sign up: every field stays', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ tables: marketplace() })
    fake.auth.signUp.mockImplementationOnce(async () => ({ data: { user: null, session: null }, error: authUnreached() }))
    renderApp('/auth?mode=sign-up', fake)
    await user.type(await screen.findByLabelText('Display name'), 'New Person')
    await user.type(screen.getByLabelText('Email'), 'new@example.com')
    await user.type(screen.getByLabelText('Password'), 'a-long-password-1')
    await user.click(screen.getByRole('button', { name: 'Create Account' }))
    expect(await screen.findByText(UNREACHED_TEXT)).toBeInTheDocument()
    expect(screen.getByLabelText('Display name')).toHaveValue('New Person')
    expect(screen.getByLabelText('Email')).toHaveValue('new@example.com')
    expect(screen.getByLabelText('Password')).toHaveValue('a-long-password-1')
  })

  it('dashboard profile: display name, bio and social links stay after failed saves, then save', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/profile', { tables: marketplace(), signedInAs: MAYA, users: [MAYA] })
    const name = await screen.findByRole('textbox', { name: 'Display name' })
    const bio = screen.getByRole('textbox', { name: 'Bio' })
    const social = screen.getByRole('region', { name: 'Social Links' })
    await user.clear(name)
    await user.type(name, 'Maya C.')
    await user.clear(bio)
    await user.type(bio, 'Planner maker.')
    await user.type(within(social).getByLabelText('X'), 'https://x.com/maya')

    fake.unreachable = true
    await user.click(screen.getByRole('button', { name: 'Save display name' }))
    expect(await screen.findByText('Failed to update display name')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Save bio' }))
    expect(await screen.findByText('Failed to update bio')).toBeInTheDocument()
    await user.click(within(social).getByRole('button', { name: 'Save social links' }))
    expect(await screen.findByText('Failed to update social links')).toBeInTheDocument()
    expect(name).toHaveValue('Maya C.')
    expect(bio).toHaveValue('Planner maker.')
    expect(within(social).getByLabelText('X')).toHaveValue('https://x.com/maya')
    expect(within(social).getByLabelText('Website')).toHaveValue('https://example.com/maya')
    // The forms are still there: no retry state replaced the page.
    expect(screen.queryByTestId('load-error')).not.toBeInTheDocument()

    fake.unreachable = false
    await user.click(screen.getByRole('button', { name: 'Save display name' }))
    expect(await screen.findByText('Display name updated successfully')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Save bio' }))
    expect(await screen.findByText('Bio updated successfully')).toBeInTheDocument()
    expect(fake.tables.profiles.find((p) => p.id === MAYA.id)).toMatchObject({ display_name: 'Maya C.', bio: 'Planner maker.' })
  })

  it('avatar: the chosen picture is kept, and "Try again" in the toast sends the same file', async () => {
    vi.stubGlobal('createImageBitmap', async () => ({ width: 500, height: 500, close: () => {} }))
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/profile', { tables: marketplace(), signedInAs: MAYA, users: [MAYA], failing: { 'storage:avatars': { ...UNREACHABLE } } })
    const picture = new File(['x'], 'me.png', { type: 'image/png' })
    await screen.findByRole('textbox', { name: 'Display name' })
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!
    await user.upload(input, picture)
    expect(await screen.findByText('Failed to update avatar. Please try again.')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(0)
    fake.failing = {}
    await user.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('Avatar updated successfully')).toBeInTheDocument()
    expect(fake.uploads).toHaveLength(1)
    expect(fake.uploads[0].file).toBe(picture)
  })

  it('rating: the stars and the review stay, and submit again', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', { tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }), signedInAs: MAYA })
    await user.click(await screen.findByRole('radio', { name: '4 stars' }))
    await user.type(screen.getByLabelText('Review (optional)'), 'Solid CRM.')
    fake.failing = { template_ratings: { ...UNREACHABLE } }
    await user.click(screen.getByRole('button', { name: 'Submit Rating' }))
    expect(await screen.findByText('Failed to submit rating. Please try again.')).toBeInTheDocument()
    expect(screen.getByRole('radio', { name: '4 stars' })).toBeChecked()
    expect(screen.getByLabelText('Review (optional)')).toHaveValue('Solid CRM.')
    fake.failing = {}
    await user.click(screen.getByRole('button', { name: 'Submit Rating' }))
    expect(await screen.findByText('Rating submitted')).toBeInTheDocument()
    expect(fake.tables.template_ratings).toEqual([{ template_id: 't-crm', user_id: MAYA.id, rating: 4, review_text: 'Solid CRM.' }])
  })

  it('newsletter: the name and e-mail stay', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ tables: marketplace(), rpc: { get_trending_creators: () => ({ data: [] }) }, functions: { 'subscribe-to-newsletter': () => ({ data: { success: true } }) } })
    renderApp('/', fake)
    await user.type(await screen.findByLabelText('Name'), 'Reader')
    await user.type(screen.getByLabelText('Email'), 'reader@example.com')
    fake.unreachable = true
    await user.click(screen.getByRole('button', { name: 'Subscribe' }))
    expect(await screen.findByText('Failed to subscribe. Please try again later.')).toBeInTheDocument()
    expect(screen.getByLabelText('Name')).toHaveValue('Reader')
    expect(screen.getByLabelText('Email')).toHaveValue('reader@example.com')
    fake.unreachable = false
    await user.click(screen.getByRole('button', { name: 'Subscribe' }))
    expect(await screen.findByText("You've been subscribed to our newsletter.")).toBeInTheDocument()
  })

  it("a guest's free download: the dialog stays open with the e-mail, and says the server was not reached", async () => {
    const user = userEvent.setup()
    const openTab = vi.spyOn(browser, 'openTab').mockImplementation(() => {})
    const options: FakeOptions = { tables: marketplace(), functions: { 'create-free-order': () => ({ data: { downloadUrl: 'https://files.example/planner.zip' } }) } }
    const { fake } = renderApp('/template/t-planner', options)
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    const dialog = await screen.findByRole('dialog', { name: 'Get Your Free Template' })
    await user.type(within(dialog).getByLabelText('Email'), 'guest@example.com')
    fake.unreachable = true
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    expect(await screen.findByText(UNREACHED_TEXT)).toBeInTheDocument()
    expect(screen.getByRole('dialog', { name: 'Get Your Free Template' })).toBeInTheDocument()
    expect(within(dialog).getByLabelText('Email')).toHaveValue('guest@example.com')
    fake.unreachable = false
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    await waitFor(() => expect(openTab).toHaveBeenCalledWith('https://files.example/planner.zip'))
  })

  it('edit template: the fields stay and the page stays after a failed save', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/templates/edit/t-planner', { tables: marketplace(), signedInAs: MAYA })
    const title = await screen.findByLabelText('Title')
    await user.clear(title)
    await user.type(title, 'Calmer Planner')
    await user.clear(screen.getByLabelText('Price (USD)'))
    await user.type(screen.getByLabelText('Price (USD)'), '7')
    fake.unreachable = true
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    expect(await screen.findByText('Failed to update template. Please try again.')).toBeInTheDocument()
    expect(here(router)).toBe('/dashboard/templates/edit/t-planner')
    expect(screen.getByLabelText('Title')).toHaveValue('Calmer Planner')
    expect(screen.getByLabelText('Price (USD)')).toHaveValue(7)
    fake.unreachable = false
    await user.click(screen.getByRole('button', { name: 'Save Changes' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=published'))
    expect(fake.tables.templates.find((t) => t.id === 't-planner')).toMatchObject({ title: 'Calmer Planner', price: 7 })
  })

  it("admin: the rejection reason stays in its open dialog when the rejection fails", async () => {
    const user = userEvent.setup()
    const ADMIN = { id: 'u-admin', email: 'admin@example.com', password: 'secret-pass', display_name: 'Ada Admin' }
    let reachable = false
    const fake = new FakeSupabase({
      tables: marketplace({
        admins: [{ id: 'a-1', user_id: ADMIN.id }],
        templates_pending_approval: [
          { id: 'p-1', creator_id: LEO.id, title: 'Meal Prep Planner', description: 'd', category_id: 'c-prod', status: 'Pending Approval', created_at: new Date().toISOString() },
        ],
      }),
      signedInAs: ADMIN,
      rpc: {
        admin_reject_template: () => (reachable ? { data: 'p-1' } : { error: { ...UNREACHABLE } }),
      },
    })
    renderApp('/dashboard/admin', fake)
    await user.selectOptions(await screen.findByLabelText('Status of Meal Prep Planner'), 'Reject')
    const dialog = await screen.findByRole('dialog', { name: 'Reject "Meal Prep Planner"' })
    await user.type(within(dialog).getByLabelText('Rejection reason'), 'The previews are blurry.')
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Failed to update template status')).toBeInTheDocument()
    expect(screen.getByRole('dialog', { name: 'Reject "Meal Prep Planner"' })).toBeInTheDocument()
    expect(within(dialog).getByLabelText('Rejection reason')).toHaveValue('The previews are blurry.')
    reachable = true
    await user.click(within(dialog).getByRole('button', { name: 'Reject Template' }))
    expect(await screen.findByText('Template rejected successfully')).toBeInTheDocument()
    expect(fake.rpc).toHaveBeenLastCalledWith('admin_reject_template', { pending_template_id: 'p-1', reason: 'The previews are blurry.' })
  })
})
