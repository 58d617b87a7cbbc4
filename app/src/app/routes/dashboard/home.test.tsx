import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA, PROFILES, template } from '@/testing/fixtures'
import type { Row } from '@/testing/fake-supabase'
import { notices } from '@/features/dashboard/components/dashboard-home'

// Maya's published rows: ratings 4.5, 4.0 and an unrated one (0), so the
// average over rated templates is 4.25 -> 4.3 (with the unrated one it would be 2.8).
const MAYA_TEMPLATES: Row[] = [
  template({ id: 't-a', title: 'Alpha', downloads_count: 1200, total_views: 5000, average_rating: 4.5, total_ratings: 4 }),
  template({ id: 't-b', title: 'Bravo', downloads_count: 300, total_views: 700, average_rating: '4.00', total_ratings: 2 }),
  template({ id: 't-c', title: 'Charlie', downloads_count: 5, total_views: 45, average_rating: 0, total_ratings: 0, is_published: false, status: 'hidden' }),
  template({ id: 't-leo', title: 'Leo Thing', user_id: 'u-leo', downloads_count: 999, total_views: 999, average_rating: 1 }),
]

const DRAFTS: Row[] = [
  { id: 'd-1', creator_id: 'u-maya', title: 'Draft one' },
  { id: 'd-2', creator_id: 'u-maya', title: 'Draft two' },
  { id: 'd-3', creator_id: 'u-leo', title: 'Not Maya' },
]
const PENDING: Row[] = [
  { id: 'p-1', creator_id: 'u-maya', title: 'Pending one', status: 'Pending Approval' },
  { id: 'p-2', creator_id: 'u-leo', title: 'Pending Leo', status: 'Pending Approval' },
]
const REJECTED: Row[] = [
  { id: 'r-1', creator_id: 'u-maya', title: 'Rejected one', rejection_comment: 'No.' },
  { id: 'r-2', creator_id: 'u-maya', title: 'Rejected two', rejection_comment: 'No.' },
  { id: 'r-3', creator_id: 'u-maya', title: 'Rejected three', rejection_comment: 'No.' },
]
const UPVOTES: Row[] = [
  { template_id: 't-a', user_id: 'u-leo' },
  { template_id: 't-a', user_id: 'u-kim' },
  { template_id: 't-b', user_id: 'u-kim' },
  { template_id: 't-leo', user_id: 'u-maya' },
]

function tables(extra: Record<string, Row[]> = {}) {
  return marketplace({
    templates: MAYA_TEMPLATES,
    templates_draft: DRAFTS,
    templates_pending_approval: PENDING,
    templates_rejected: REJECTED,
    template_upvotes: UPVOTES,
    ...extra,
  })
}

const wishlistCounts = {
  get_template_wishlist_counts: ({ template_ids }: Record<string, unknown>) => ({
    data: (template_ids as string[]).filter((id) => id !== 't-leo').map((id) => ({ template_id: id, wishlist_count: id === 't-a' ? 5 : 2 })),
  }),
}

describe('dashboard home', () => {
  it('counts the templates per store, only the user’s', async () => {
    const { fake } = renderApp('/dashboard', { tables: tables(), rpc: wishlistCounts, signedInAs: MAYA })
    const overview = await screen.findByRole('region', { name: 'Template Status Overview' })
    expect(await within(overview).findByTestId('status-draft')).toHaveTextContent('2')
    expect(within(overview).getByTestId('status-published')).toHaveTextContent('2') // is_published only
    expect(within(overview).getByTestId('status-pending')).toHaveTextContent('1')
    expect(within(overview).getByTestId('status-rejected')).toHaveTextContent('3')
    expect(within(overview).getByRole('link', { name: /Drafts/ })).toHaveAttribute('href', '/dashboard/templates?tab=draft')
    expect(fake.callsTo('templates_draft')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates_rejected')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates_pending_approval')[0].filters).toEqual(['creator_id=eq.u-maya'])
    expect(fake.callsTo('templates').some((c) => c.filters.join('&') === 'user_id=eq.u-maya&is_published=eq.true')).toBe(true)
  })

  it('sums the engagement of the user’s templates and averages the rated ones to one decimal', async () => {
    const { fake } = renderApp('/dashboard', { tables: tables(), rpc: wishlistCounts, signedInAs: MAYA })
    const stats = await screen.findByRole('region', { name: 'Engagement Statistics' })
    expect(await within(stats).findByTestId('stat-upvotes')).toHaveTextContent('3')
    expect(within(stats).getByTestId('stat-downloads')).toHaveTextContent('1,505')
    expect(within(stats).getByTestId('stat-views')).toHaveTextContent('5,745')
    expect(within(stats).getByTestId('stat-favorited')).toHaveTextContent('9')
    expect(within(stats).getByTestId('stat-avg-rating')).toHaveTextContent('4.3')
    expect(within(stats).getByTestId('stat-total-templates')).toHaveTextContent('3')
    expect(fake.callsTo('template_upvotes')[0].filters).toEqual(['template_id=in.(t-a,t-b,t-c)'])
    expect(fake.rpc).toHaveBeenCalledWith('get_template_wishlist_counts', { template_ids: ['t-a', 't-b', 't-c'] })
  })

  it('shows 0.0 and zeros for a creator without templates, and no notices', async () => {
    renderApp('/dashboard', { tables: marketplace({ templates: [] }), rpc: wishlistCounts, signedInAs: MAYA })
    expect(await screen.findByTestId('stat-avg-rating')).toHaveTextContent('0.0')
    expect(screen.getByTestId('stat-upvotes')).toHaveTextContent('0')
    expect(await screen.findByTestId('status-draft')).toHaveTextContent('0')
    expect(screen.queryByRole('region', { name: 'Notices' })).not.toBeInTheDocument()
    expect(screen.queryByText(/waiting for review/)).not.toBeInTheDocument()
  })

  it('shows pluralised notices for drafts, pending and rejected, linking to their tabs', async () => {
    const { router } = renderApp('/dashboard', { tables: tables(), rpc: wishlistCounts, signedInAs: MAYA })
    const box = await screen.findByRole('region', { name: 'Notices' })
    expect(within(box).getByText('2 drafts in progress')).toBeInTheDocument()
    expect(within(box).getByText('You have 1 template waiting for review. Our team will get back to you soon!')).toBeInTheDocument()
    expect(within(box).getByText('3 templates need changes')).toBeInTheDocument()
    expect(within(box).getByText('Review the feedback and make improvements to resubmit.')).toBeInTheDocument()
    expect(within(box).getByRole('link', { name: 'View drafts' })).toHaveAttribute('href', '/dashboard/templates?tab=draft')
    expect(within(box).getByRole('link', { name: 'View rejected' })).toHaveAttribute('href', '/dashboard/templates?tab=rejected')
    await userEvent.setup().click(within(box).getByRole('link', { name: 'View pending' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/templates?tab=pending'))
  })

  it('pluralises the notice texts', () => {
    expect(notices({ draft: 1, pending: 2, rejected: 1, published: 0 })).toEqual([
      expect.objectContaining({ kind: 'draft', title: '1 draft in progress' }),
      expect.objectContaining({ kind: 'pending', text: 'You have 2 templates waiting for review. Our team will get back to you soon!' }),
      expect.objectContaining({ kind: 'rejected', title: '1 template needs changes', text: 'Review the feedback and make improvements to resubmit.' }),
    ])
    expect(notices({ draft: 0, pending: 0, rejected: 0, published: 4 })).toEqual([])
    // The shared count helper groups large counts as every count is shown.
    expect(notices({ draft: 1200, pending: 0, rejected: 0, published: 0 })).toEqual([
      expect.objectContaining({ kind: 'draft', title: '1,200 drafts in progress', text: expect.stringMatching(/^You have 1,200 unfinished templates\./) }),
    ])
  })

  it('asks for a display name and avatar while they are missing, linking to the profile page', async () => {
    // Maya has a display name and a username but no avatar.
    renderApp('/dashboard', { tables: tables(), rpc: wishlistCounts, signedInAs: MAYA })
    const link = await screen.findByRole('link', { name: /Setup your profile/ })
    expect(link).toHaveAttribute('href', '/dashboard/profile')
    expect(screen.queryByText('Setup your username')).not.toBeInTheDocument()
  })

  it('asks for a username while there is none, and hides the profile card once complete', async () => {
    const profiles = PROFILES.map((p) => (p.id === 'u-maya' ? { ...p, username: null, avatar_url: 'https://example.com/maya.png' } : p))
    renderApp('/dashboard', { tables: tables({ profiles }), rpc: wishlistCounts, signedInAs: MAYA })
    expect(await screen.findByRole('link', { name: /Setup your username/ })).toHaveAttribute('href', '/dashboard/profile')
    expect(screen.queryByText('Setup your profile')).not.toBeInTheDocument()
    expect(screen.getByText(/Welcome back, Maya Chen/)).toBeInTheDocument()
  })

  it('shows neither card for a complete profile', async () => {
    const profiles = PROFILES.map((p) => (p.id === 'u-maya' ? { ...p, avatar_url: 'https://example.com/maya.png' } : p))
    renderApp('/dashboard', { tables: tables({ profiles }), rpc: wishlistCounts, signedInAs: MAYA })
    await screen.findByText(/Welcome back, Maya Chen/)
    expect(screen.queryByText('Setup your profile')).not.toBeInTheDocument()
    expect(screen.queryByText('Setup your username')).not.toBeInTheDocument()
  })

  it('says so when the templates cannot be loaded', async () => {
    renderApp('/dashboard', { tables: tables(), rpc: wishlistCounts, signedInAs: MAYA, failing: { templates_draft: { message: 'down' } } })
    expect(await screen.findByText('Failed to load templates. Please try again.')).toBeInTheDocument()
  })

  it('sends visitors to sign in', async () => {
    const { router } = renderApp('/dashboard', { tables: tables() })
    await waitFor(() => expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fdashboard'))
  })
})
