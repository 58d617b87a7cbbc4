// Issue 24: every screen whose content comes from the server shows the retry
// state when the server cannot be reached (not an empty list, not "not
// found"), and comes back on "Try again"; an answer of "no such row" still
// shows the screen's not-found text.
import { describe, expect, it } from 'vitest'
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { FakeSupabase, UNREACHABLE, type FakeOptions, type FakeUser } from '@/testing/fake-supabase'
import { marketplace, MAYA } from '@/testing/fixtures'

const ADMIN: FakeUser = { id: 'u-admin', email: 'admin@example.com', password: 'secret-pass', display_name: 'Ada Admin' }

function tables() {
  return marketplace({
    admins: [{ id: 'a-1', user_id: ADMIN.id }],
    templates_pending_approval: [],
    template_upvotes: [],
  })
}

const base = (signedInAs?: FakeUser): FakeOptions => ({
  tables: tables(),
  signedInAs,
  users: signedInAs ? [signedInAs] : [],
  rpc: {
    get_trending_creators: () => ({ data: [] }),
    get_user_followers: () => ({ data: [] }),
    get_user_following: () => ({ data: [] }),
    get_template_wishlist_counts: () => ({ data: [] }),
    get_creator_statistics: () => ({ data: null }),
  },
})

/** Opens `path` with the server out of reach; answers the retry state. */
async function openUnreachable(path: string, signedInAs?: FakeUser) {
  const fake = new FakeSupabase(base(signedInAs))
  fake.unreachable = true
  renderApp(path, fake)
  // A screen may have several (the dashboard's two sections): any one retries them all.
  const [alert] = await screen.findAllByTestId('load-error')
  return { fake, alert }
}

describe('the retry state', () => {
  it.each([
    // [path, signed in as, what the screen shows once it has loaded]
    ['/categories', undefined, () => screen.findByRole('link', { name: /Productivity/ })],
    ['/category/productivity', undefined, () => screen.findByRole('heading', { level: 1, name: 'Productivity' })],
    ['/creators', undefined, () => screen.findByRole('link', { name: 'Maya Chen' })],
    ['/profile/mayachen', undefined, () => screen.findByRole('heading', { name: 'Maya Chen' })],
    ['/template/t-planner', undefined, () => screen.findByRole('heading', { level: 1, name: 'Calm Weekly Planner' })],
    ['/dashboard', MAYA, () => screen.findByTestId('status-published')],
    ['/dashboard/templates', MAYA, () => screen.findAllByRole('tab')],
    ['/dashboard/templates/edit/t-planner', MAYA, () => screen.findByDisplayValue('Calm Weekly Planner')],
    ['/dashboard/profile', MAYA, () => screen.findByRole('textbox', { name: 'Display name' })],
    ['/dashboard/settings', MAYA, () => screen.findByRole('region', { name: 'Payment Profile' })],
    ['/dashboard/audience', MAYA, () => screen.findByRole('tab', { name: 'Followers (0)' })],
    ['/dashboard/admin', ADMIN, () => screen.findByText('No templates pending review')],
  ] as const)('%s shows it, then the content on Try again', async (path, who, loaded) => {
    const user = userEvent.setup()
    const { fake, alert } = await openUnreachable(path, who)
    expect(alert).toHaveAttribute('role', 'alert')
    expect(alert).toHaveTextContent('Check your connection and try again.')
    // Never a claim the server did not make.
    for (const text of [/not found/i, /No .* yet/, 'Access Denied', 'No templates pending review'])
      expect(screen.queryByText(text)).not.toBeInTheDocument()

    fake.unreachable = false
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    await loaded()
    expect(screen.queryByTestId('load-error')).not.toBeInTheDocument()
  })

  it('shows the loading state while the retry runs, and the retry state again when it fails again', async () => {
    const user = userEvent.setup()
    const { fake, alert } = await openUnreachable('/template/t-planner')
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const from = fake.from
    fake.from = ((table: string) => {
      const query = from(table)
      const then = query.then.bind(query)
      query.then = ((ok, fail) => gate.then(() => then(ok, fail))) as typeof query.then
      return query
    }) as typeof fake.from
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('Loading template...')).toBeInTheDocument()
    expect(screen.queryByTestId('load-error')).not.toBeInTheDocument()
    release()
    // Still unreachable: the retry state again, ready for another try.
    const again = await screen.findByTestId('load-error')
    expect(within(again).getByRole('button', { name: 'Try again' })).toBeInTheDocument()
  })
})

describe('not found stays not found', () => {
  it.each([
    ['/template/no-such-template', 'Template Not Found'],
    ['/category/no-such-category', 'Category not found'],
    ['/profile/nobody-here', 'Profile Not Found'],
    ['/dashboard/templates/edit/not-mine', 'Template not found'],
  ] as const)('%s says %s, without the retry state', async (path, text) => {
    renderApp(path, base(MAYA))
    expect(await screen.findByText(text)).toBeInTheDocument()
    expect(screen.queryByTestId('load-error')).not.toBeInTheDocument()
  })

  it('a table the server refuses is not a connection problem: a profile read refused is still an error, not "not found"', async () => {
    renderApp('/profile/mayachen', { ...base(), failing: { profiles: { message: 'permission denied for table profiles', code: '42501' } } })
    expect(await screen.findByTestId('load-error')).toBeInTheDocument()
    expect(screen.queryByText('Profile Not Found')).not.toBeInTheDocument()
  })
})

describe('admin pages when the admin check cannot be read', () => {
  it('do not say Access Denied', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ ...base(ADMIN), failing: { admins: { ...UNREACHABLE } } })
    renderApp('/dashboard/admin', fake)
    const alert = await screen.findByTestId('load-error')
    expect(screen.queryByText('Access Denied')).not.toBeInTheDocument()
    fake.failing = {}
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('heading', { name: 'Admin Panel' })).toBeInTheDocument()
  })

  it('the review page says the server is out of reach, not "Template not found"', async () => {
    const fake = new FakeSupabase({ ...base(ADMIN), failing: { templates_pending_approval: { ...UNREACHABLE } } })
    renderApp('/dashboard/admin/template/p-1', fake)
    expect(await screen.findByTestId('load-error')).toBeInTheDocument()
    expect(screen.queryByText('Template not found')).not.toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Dashboard' })).toBeInTheDocument()
  })
})
