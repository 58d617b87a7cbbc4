import { describe, expect, it, vi } from 'vitest'
import { act, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, template } from '@/testing/fixtures'
import { UNREACHABLE } from '@/testing/fake-supabase'

async function titles() {
  const cards = await screen.findAllByRole('article')
  return cards.map((c) => within(c).getByRole('heading', { level: 3 }).textContent)
}

describe('discover', () => {
  it('reads category, price and sort from the URL and shows them as chips', async () => {
    renderApp('/discover?category=productivity&price=free', { tables: marketplace() })
    expect(await titles()).toEqual(['Calm Weekly Planner'])
    expect(screen.getByLabelText('Category')).toHaveValue('productivity')
    expect(screen.getByLabelText('Price')).toHaveValue('free')
    const chips = screen.getByRole('list', { name: 'Active filters' })
    expect(within(chips).getByText('Category: Productivity')).toBeInTheDocument()
    expect(within(chips).getByText('Price: Free')).toBeInTheDocument()
  })

  it('writes select changes to the URL', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/discover', { tables: marketplace() })
    expect(await titles()).toEqual(['Calm Weekly Planner', 'Startup CRM', 'Budget Planner'])
    await user.selectOptions(screen.getByLabelText('Price'), 'paid')
    await waitFor(() => expect(here(router)).toBe('/discover?price=paid'))
    await waitFor(async () => expect(await titles()).toEqual(['Startup CRM', 'Budget Planner']))
    await user.selectOptions(screen.getByLabelText('Sort'), 'price-low')
    await waitFor(() => expect(here(router)).toBe('/discover?price=paid&sort=price-low'))
    await waitFor(async () => expect(await titles()).toEqual(['Budget Planner', 'Startup CRM']))
  })

  // Issue 15, item 10: Back steps through deliberate filter changes and stays on Discover.
  it('pushes a history entry for each deliberate filter change; the debounced search replaces', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/creators', { tables: marketplace() })
    await act(() => router.navigate('/discover'))
    await titles()
    await user.selectOptions(screen.getByLabelText('Category'), 'productivity')
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity'))
    await user.selectOptions(screen.getByLabelText('Price'), 'free')
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&price=free'))
    await user.selectOptions(screen.getByLabelText('Sort'), 'oldest')
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&price=free&sort=oldest'))
    await user.click(screen.getByRole('button', { name: 'Remove filter Price: Free' }))
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&sort=oldest'))
    await user.type(screen.getByRole('searchbox', { name: 'Search templates' }), 'calm')
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&sort=oldest&search=calm'))
    // Back: the search replaced its entry, so the chip's removal is undone first.
    await act(() => router.navigate(-1))
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&price=free&sort=oldest'))
    expect(screen.getByLabelText('Price')).toHaveValue('free')
    expect(screen.getByRole('searchbox', { name: 'Search templates' })).toHaveValue('')
    await act(() => router.navigate(-1))
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity&price=free'))
    expect(screen.getByLabelText('Sort')).toHaveValue('newest')
    await act(() => router.navigate(-1))
    await waitFor(() => expect(here(router)).toBe('/discover?category=productivity'))
    await act(() => router.navigate(-1))
    await waitFor(() => expect(here(router)).toBe('/discover'))
    expect(screen.getByLabelText('Category')).toHaveValue('all')
    await act(() => router.navigate(-1))
    await waitFor(() => expect(here(router)).toBe('/creators'))
  })

  // Issue 15, item 9: an unknown category says so and offers to clear it.
  it('says when the category in the URL does not exist and offers to clear it', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/discover?category=nope&price=free', { tables: marketplace() })
    expect(await screen.findByText('Category not found')).toBeInTheDocument()
    expect(screen.getByText('There is no category "nope".')).toBeInTheDocument()
    expect(screen.queryByText('No templates found')).not.toBeInTheDocument()
    const select = screen.getByLabelText('Category')
    expect(select).toHaveValue('nope')
    expect(within(select).getByRole('option', { name: 'Unknown category', selected: true })).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Show all categories' }))
    await waitFor(() => expect(here(router)).toBe('/discover?price=free'))
    expect(await titles()).toEqual(['Calm Weekly Planner'])
    expect(screen.getByLabelText('Category')).toHaveValue('all')
    expect(screen.queryByRole('option', { name: 'Unknown category' })).not.toBeInTheDocument()
  })

  it('debounces the search box by 300 ms before it reaches the URL', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime })
    const { router, fake } = renderApp('/discover', { tables: marketplace() })
    await titles()
    const reads = () => fake.callsTo('templates', 'select').filter((c) => c.filters.some((f) => f.startsWith('or=('))).length
    await user.type(screen.getByRole('searchbox', { name: 'Search templates' }), 'crm')
    // (The fake clock also follows real time a little, so stay clear of the edge.)
    act(() => vi.advanceTimersByTime(250))
    expect(here(router)).toBe('/discover')
    expect(reads()).toBe(0)
    act(() => vi.advanceTimersByTime(60))
    await waitFor(() => expect(here(router)).toBe('/discover?search=crm'))
    await waitFor(async () => expect(await titles()).toEqual(['Startup CRM']))
    expect(reads()).toBe(1) // one read for the whole word, not one per keystroke
  })

  it('removes a filter with its chip and all of them with Clear Filters', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/discover?search=planner&price=paid&sort=oldest', { tables: marketplace() })
    expect(await titles()).toEqual(['Budget Planner'])
    expect(screen.getByRole('searchbox', { name: 'Search templates' })).toHaveValue('planner')
    await user.click(screen.getByRole('button', { name: 'Remove filter Price: Paid' }))
    await waitFor(() => expect(here(router)).toBe('/discover?search=planner&sort=oldest'))
    await waitFor(async () => expect(await titles()).toEqual(['Budget Planner', 'Calm Weekly Planner']))
    await user.click(screen.getByRole('button', { name: 'Clear Filters' }))
    await waitFor(() => expect(here(router)).toBe('/discover'))
    expect(screen.getByRole('searchbox', { name: 'Search templates' })).toHaveValue('')
    expect(screen.queryByRole('list', { name: 'Active filters' })).not.toBeInTheDocument()
  })

  it('most popular keeps only templates with at least 2 upvotes', async () => {
    renderApp('/discover?sort=most-popular', { tables: marketplace() })
    // planner 3 and budget 2 qualify; crm (1 upvote) does not.
    expect(await titles()).toEqual(['Calm Weekly Planner', 'Budget Planner'])
  })

  it('most popular with no template at 2 upvotes is empty', async () => {
    renderApp('/discover?sort=most-popular', {
      tables: marketplace({ template_upvote_counts: [{ template_id: 't-crm', upvote_count: 1 }] }),
    })
    expect(await screen.findByText('No templates found')).toBeInTheDocument()
    expect(screen.getByText('Try adjusting your filters or search terms')).toBeInTheDocument()
  })

  it('shows the empty state when nothing matches', async () => {
    renderApp('/discover?search=zzz', { tables: marketplace() })
    expect(await screen.findByText('No templates found')).toBeInTheDocument()
  })

  it('reports a failed load with the retry state, not "No templates found", and recovers on Try again', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/discover', { tables: marketplace(), failing: { templates: { ...UNREACHABLE } } })
    expect(await screen.findByText('Failed to load templates')).toBeInTheDocument()
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent("We couldn't load the templates")
    expect(alert).toHaveTextContent('Check your connection and try again.')
    expect(screen.queryByText('No templates found')).not.toBeInTheDocument()

    fake.failing = {}
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('Calm Weekly Planner')).toBeInTheDocument()
    expect(screen.queryByRole('alert')).not.toBeInTheDocument()
  })

  it('does not call a category in the URL unknown while the categories cannot be read', async () => {
    renderApp('/discover?category=productivity', { tables: marketplace(), failing: { categories: { ...UNREACHABLE } } })
    expect(await screen.findByRole('alert')).toHaveTextContent("We couldn't load the templates")
    expect(screen.queryByText('Category not found')).not.toBeInTheDocument()
  })

  it('the header links open discover with sort or price set', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/', { tables: marketplace({ templates: [template({ id: 't-x', title: 'X' })] }) })
    await user.click(await screen.findByRole('button', { name: 'Discover menu' }))
    await user.click(await screen.findByRole('menuitem', { name: 'Premium Templates' }))
    await waitFor(() => expect(here(router)).toBe('/discover?price=paid'))
    expect(await screen.findByLabelText('Price')).toHaveValue('paid')
  })
})
