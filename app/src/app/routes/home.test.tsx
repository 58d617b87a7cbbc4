import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, TEMPLATES } from '@/testing/fixtures'
import { FakeSupabase } from '@/testing/fake-supabase'

describe('home', () => {
  it('shows trending templates by upvotes, the latest grid and the statistics', async () => {
    renderApp('/', {
      tables: marketplace(),
      rpc: { get_trending_creators: () => ({ data: [] }) },
    })
    const trending = await screen.findByRole('region', { name: 'Trending Templates' })
    await waitFor(() => expect(within(trending).getAllByRole('article')).toHaveLength(3))
    const titles = within(trending).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)
    expect(titles).toEqual(['Calm Weekly Planner', 'Budget Planner', 'Startup CRM'])
    // Ranks sit beside the category, off the preview, whose window dots they covered (issue 15, item 18).
    const ranks = within(trending).getAllByTestId('rank')
    expect(ranks.map((r) => r.textContent)).toEqual(['#1', '#2', '#3'])
    for (const rank of ranks) expect(rank.closest('article')!.querySelector('img, .aspect-\\[16\\/10\\]')!.contains(rank)).toBe(false)

    const latest = screen.getByRole('region', { name: 'Latest Templates' })
    await waitFor(() => expect(within(latest).getAllByRole('article')).toHaveLength(3))
    // Cards show two tags, then +N.
    const planner = within(latest).getByText('Calm Weekly Planner').closest('article')!
    expect(within(planner).getByText('planner')).toBeInTheDocument()
    expect(within(planner).getByText('weekly')).toBeInTheDocument()
    expect(within(planner).queryByText('focus')).not.toBeInTheDocument()
    expect(within(planner).getByText('+2')).toBeInTheDocument()
    expect(within(planner).getByText('Free')).toBeInTheDocument()
    expect(within(latest).getByText('$19.00')).toBeInTheDocument()

    expect(await screen.findByText('2,300')).toBeInTheDocument() // downloads summed
    expect(screen.getByText('Total Templates')).toBeInTheDocument()
    expect(screen.getByText('Active Creators')).toBeInTheDocument()
  })

  it('shows the empty texts when there is nothing yet', async () => {
    renderApp('/', { tables: { templates: [], template_upvote_counts: [], profiles: [] }, rpc: { get_trending_creators: () => ({ data: [] }) } })
    expect(await screen.findByText('No trending templates yet')).toBeInTheDocument()
    expect(await screen.findByText('No templates available yet. Check back soon!')).toBeInTheDocument()
    expect(await screen.findByText('No creators available yet')).toBeInTheDocument()
  })

  it('shows the loading text while templates load', async () => {
    renderApp('/', { tables: marketplace() })
    expect(await screen.findAllByText('Loading templates...')).not.toHaveLength(0)
  })

  it('shows the retry state, not empty lists, when the server cannot be reached; one Try again recovers the page', async () => {
    const user = userEvent.setup()
    const fake = new FakeSupabase({ tables: marketplace(), rpc: { get_trending_creators: () => ({ data: [] }) } })
    fake.unreachable = true
    renderApp('/', fake)
    const trending = await screen.findByRole('region', { name: 'Trending Templates' })
    const latest = screen.getByRole('region', { name: 'Latest Templates' })
    expect(await within(trending).findByText("We couldn't load the trending templates")).toBeInTheDocument()
    expect(await within(latest).findByText("We couldn't load the latest templates")).toBeInTheDocument()
    expect(screen.getByText("We couldn't load the top creators")).toBeInTheDocument()
    // Not the empty texts: nothing says there are no templates.
    expect(screen.queryByText('No trending templates yet')).not.toBeInTheDocument()
    expect(screen.queryByText('No templates available yet. Check back soon!')).not.toBeInTheDocument()
    expect(screen.getAllByText('Not available')).toHaveLength(3)

    fake.unreachable = false
    await user.click(within(trending).getByRole('button', { name: 'Try again' }))
    // Every failed section of the page comes back, not only the one pressed.
    await waitFor(() => expect(within(trending).getAllByRole('article')).toHaveLength(3))
    await waitFor(() => expect(within(latest).getAllByRole('article')).toHaveLength(3))
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
    expect(await screen.findByText('2,300')).toBeInTheDocument()
  })

  it('ranks top creators with a crown for the first', async () => {
    renderApp('/', {
      tables: marketplace(),
      rpc: {
        get_trending_creators: ({ limit_count }) => {
          expect(limit_count).toBe(4)
          return {
            data: [
              { id: 'u-maya', rank: 1, username: 'mayachen', display_name: 'Maya Chen', avatar_url: null, bio: null, rating: 4.5, categories: ['Productivity', 'Finance', 'Business'], templates_count: 2, total_downloads: 1880, weekly_growth_percentage: 50 },
              { id: 'u-leo', rank: 2, username: 'leo-builds', display_name: 'Leo Martins', avatar_url: null, bio: null, rating: 4, categories: ['Business'], templates_count: 1, total_downloads: 420, weekly_growth_percentage: 0 },
            ],
          }
        },
      },
    })
    const section = await screen.findByRole('region', { name: 'Top Creators' })
    await waitFor(() => expect(within(section).getAllByRole('article')).toHaveLength(2))
    expect(within(section).getAllByLabelText('Top creator')).toHaveLength(1)
    // Only the first two categories.
    expect(within(section).getByText('Finance')).toBeInTheDocument()
    expect(within(section).queryByText('Business', { selector: 'span' })).toBeInTheDocument()
    const maya = within(section).getByText('Maya Chen').closest('article')!
    expect(within(maya).queryByText('Business')).not.toBeInTheDocument()
  })

  it('searches from the hero only with non-blank text', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/', { tables: marketplace() })
    const box = await screen.findByRole('searchbox', { name: 'Search templates' })
    await user.type(box, '   ')
    await user.click(screen.getByRole('button', { name: 'Search' }))
    expect(here(router)).toBe('/')
    await user.clear(box)
    await user.type(box, '  weekly plan ')
    await user.click(screen.getByRole('button', { name: 'Search' }))
    await waitFor(() => expect(here(router)).toBe('/discover?search=weekly%20plan'))
  })

  it('subscribes to the newsletter through the function and clears the fields', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/', {
      tables: marketplace(),
      functions: { 'subscribe-to-newsletter': () => ({ data: { ok: true } }) },
    })
    const name = await screen.findByLabelText('Name')
    const email = screen.getByLabelText('Email')
    // Incomplete: silently nothing.
    await user.type(email, 'reader@example.com')
    await user.click(screen.getByRole('button', { name: 'Subscribe' }))
    expect(fake.callsTo('fn:subscribe-to-newsletter')).toHaveLength(0)
    await user.type(name, 'Reader')
    await user.click(screen.getByRole('button', { name: 'Subscribe' }))
    expect(await screen.findByText('Success!')).toBeInTheDocument()
    expect(screen.getByText("You've been subscribed to our newsletter.")).toBeInTheDocument()
    expect(fake.callsTo('fn:subscribe-to-newsletter')[0].payload).toEqual({ email: 'reader@example.com', name: 'Reader' })
    expect(name).toHaveValue('')
    expect(email).toHaveValue('')
  })

  it('tells the visitor when the newsletter sign-up fails', async () => {
    const user = userEvent.setup()
    renderApp('/', { tables: marketplace() })
    await user.type(await screen.findByLabelText('Name'), 'Reader')
    await user.type(screen.getByLabelText('Email'), 'reader@example.com')
    await user.click(screen.getByRole('button', { name: 'Subscribe' }))
    expect(await screen.findByText('Failed to subscribe. Please try again later.')).toBeInTheDocument()
  })
})

void TEMPLATES
