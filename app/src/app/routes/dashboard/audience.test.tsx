import { describe, expect, it } from 'vitest'
import { render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { here, renderApp } from '@/testing/render'
import { FakeSupabase, type Row } from '@/testing/fake-supabase'
import { marketplace, MAYA, PROFILES } from '@/testing/fixtures'
import { useSessionStore } from '@/lib/session'
import DashboardAudienceRoute from './audience'

const DAY = 24 * 3600 * 1000
const ago = (ms: number) => new Date(Date.now() - ms).toISOString()
const NO_NAME = { id: '00000000-0000-4000-8000-0000000000aa', username: null, display_name: null, avatar_url: null, bio: null, social_links: {}, created_at: '2024-01-01T00:00:00Z' }

/** A fake whose follow RPCs read its own followers table, as the server's do. */
function audienceFake(follows: Row[], failing: FakeSupabase['failing'] = {}) {
  const profiles = [...PROFILES, NO_NAME]
  const listing = (rows: Row[], key: 'follower_id' | 'following_id') =>
    rows
      .map((f) => {
        const p = profiles.find((x) => x.id === f[key])!
        return { id: p.id, username: p.username, display_name: p.display_name, avatar_url: p.avatar_url, followed_at: f.created_at }
      })
      .sort((a, b) => String(b.followed_at).localeCompare(String(a.followed_at)))
  const fake: FakeSupabase = new FakeSupabase({
    tables: marketplace({ profiles, followers: follows }),
    signedInAs: MAYA,
    failing,
    rpc: {
      get_user_followers: ({ user_id }) => ({ data: listing(fake.tables.followers.filter((f) => f.following_id === user_id), 'follower_id') }),
      get_user_following: ({ user_id }) => ({ data: listing(fake.tables.followers.filter((f) => f.follower_id === user_id), 'following_id') }),
    },
  })
  return fake
}

const FOLLOWS: Row[] = [
  { follower_id: 'u-leo', following_id: 'u-maya', created_at: ago(3 * DAY) },
  { follower_id: NO_NAME.id, following_id: 'u-maya', created_at: ago(2 * 3600 * 1000) },
  { follower_id: 'u-maya', following_id: 'u-leo', created_at: ago(14 * DAY) },
  { follower_id: 'u-maya', following_id: 'u-kim', created_at: ago(1 * DAY) },
  { follower_id: 'u-kim', following_id: 'u-leo', created_at: ago(5 * DAY) },
]

describe('dashboard audience', () => {
  it('lists followers with links, names and when they followed', async () => {
    const { fake } = renderApp('/dashboard/audience', audienceFake(FOLLOWS))
    expect(await screen.findByRole('tab', { name: 'Followers (2)' })).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('tab', { name: 'Following (2)' })).toBeInTheDocument()
    const panel = screen.getByRole('tabpanel')
    const rows = within(panel).getAllByRole('listitem')
    expect(rows).toHaveLength(2)
    // Newest first; a profile without a username links by id and is shown as Anonymous.
    expect(within(rows[0]).getByRole('link')).toHaveAttribute('href', `/profile/${NO_NAME.id}`)
    expect(rows[0]).toHaveTextContent('Followed you 2 hours ago')
    expect(within(rows[1]).getByRole('link')).toHaveAttribute('href', '/profile/leo-builds')
    expect(rows[1]).toHaveTextContent('Leo Martins')
    expect(rows[1]).toHaveTextContent('Followed you 3 days ago')
    expect(within(panel).queryByRole('button', { name: /Unfollow/ })).not.toBeInTheDocument()
    expect(fake.callsTo('rpc:get_user_followers')[0].payload).toEqual({ user_id: MAYA.id })
    expect(fake.callsTo('rpc:get_user_following')[0].payload).toEqual({ user_id: MAYA.id })
  })

  it('lists the people followed, and unfollows by both ids', async () => {
    const user = userEvent.setup()
    const { fake, router } = renderApp('/dashboard/audience', audienceFake(FOLLOWS))
    await user.click(await screen.findByRole('tab', { name: 'Following (2)' }))
    expect(here(router)).toBe('/dashboard/audience?tab=following')
    const panel = screen.getByRole('tabpanel')
    const rows = within(panel).getAllByRole('listitem')
    expect(rows[0]).toHaveTextContent('Kim Novak')
    expect(rows[0]).toHaveTextContent('Following since yesterday')
    expect(within(rows[1]).getByRole('link')).toHaveAttribute('href', '/profile/leo-builds')
    expect(rows[1]).toHaveTextContent('Following since 2 weeks ago')
    await user.click(within(panel).getByRole('button', { name: 'Unfollow Leo Martins' }))
    expect(await screen.findByText('Unfollowed successfully')).toBeInTheDocument()
    const [removal] = fake.callsTo('followers', 'delete')
    expect(removal.filters).toEqual(['follower_id=eq.u-maya', 'following_id=eq.u-leo'])
    expect(await screen.findByRole('tab', { name: 'Following (1)' })).toBeInTheDocument()
    expect(within(screen.getByRole('tabpanel')).queryByText('Leo Martins')).not.toBeInTheDocument()
    // Only the user's own follow went; Kim's follow of Leo stays.
    expect(fake.tables.followers.filter((f) => f.following_id === 'u-leo')).toEqual([FOLLOWS[4]])
  })

  it('opens on the Following tab from the URL', async () => {
    renderApp('/dashboard/audience?tab=following', audienceFake(FOLLOWS))
    expect(await screen.findByRole('tab', { name: 'Following (2)' })).toHaveAttribute('aria-selected', 'true')
  })

  it('says when the list cannot be loaded', async () => {
    const fake = audienceFake(FOLLOWS)
    fake.rpcHandlers.get_user_followers = () => ({ error: { message: 'boom' } })
    renderApp('/dashboard/audience', fake)
    expect(await screen.findByText('Failed to load followers data')).toBeInTheDocument()
    expect(await screen.findByRole('tab', { name: 'Followers (0)' })).toBeInTheDocument()
  })

  it('says when unfollowing fails and keeps the row', async () => {
    const user = userEvent.setup()
    renderApp('/dashboard/audience?tab=following', audienceFake(FOLLOWS, { followers: { message: 'denied' } }))
    await user.click(await screen.findByRole('button', { name: 'Unfollow Kim Novak' }))
    expect(await screen.findByText('Failed to unfollow user')).toBeInTheDocument()
    expect(screen.getByRole('tab', { name: 'Following (2)' })).toBeInTheDocument()
  })

  it('sends a signed-out visitor to sign in', async () => {
    const { router } = renderApp('/dashboard/audience', { tables: marketplace() })
    await waitFor(() => expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdashboard%2Faudience'))
  })

  it('says Please Sign In when rendered without a user', () => {
    useSessionStore.setState({ user: null, session: null, loading: false })
    const router = createMemoryRouter([{ path: '/dashboard/audience', element: <DashboardAudienceRoute /> }], {
      initialEntries: ['/dashboard/audience'],
    })
    render(
      <QueryClientProvider client={new QueryClient()}>
        <RouterProvider router={router} />
      </QueryClientProvider>,
    )
    expect(screen.getByText('Please Sign In')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth?mode=sign-in&redirect=%2Fdashboard%2Faudience')
  })
})
