import { describe, expect, it } from 'vitest'
import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA, template, TEMPLATES } from '@/testing/fixtures'
import { UNREACHABLE } from '@/testing/fake-supabase'

const HIDDEN = template({ id: 't-hidden', title: 'Withdrawn Kit', is_published: false, status: 'draft', user_id: 'u-leo' })

describe('dashboard wishlist', () => {
  it("shows the user's saved templates, joined with the template, newest first", async () => {
    const { fake } = renderApp('/dashboard/wishlist', {
      tables: marketplace({
        templates: [...TEMPLATES, HIDDEN],
        wishlist: [
          { template_id: 't-crm', user_id: 'u-maya', created_at: '2024-06-01T00:00:00Z' },
          { template_id: 't-budget', user_id: 'u-maya', created_at: '2024-06-03T00:00:00Z' },
          { template_id: 't-hidden', user_id: 'u-maya', created_at: '2024-06-04T00:00:00Z' },
          { template_id: 't-planner', user_id: 'u-leo', created_at: '2024-06-02T00:00:00Z' },
        ],
      }),
      signedInAs: MAYA,
    })
    await screen.findByRole('heading', { level: 3, name: 'Budget Planner' })
    const cards = screen.getAllByRole('article')
    expect(cards.map((c) => within(c).getByRole('heading', { level: 3 }).textContent)).toEqual(['Budget Planner', 'Startup CRM'])
    expect(within(cards[1]).getByRole('link', { name: 'Startup CRM' })).toHaveAttribute('href', '/template/t-crm')
    expect(cards[1]).toHaveTextContent('by Leo Martins')
    expect(cards[1]).toHaveTextContent('Business')
    expect(cards[1]).toHaveTextContent('$19.00')
    const [read] = fake.callsTo('wishlist', 'select')
    expect(read.filters).toEqual(['user_id=eq.u-maya'])
    expect(screen.queryByText('No Wishlisted Templates')).not.toBeInTheDocument()
  })

  it('says No Wishlisted Templates when nothing is saved', async () => {
    renderApp('/dashboard/wishlist', {
      tables: marketplace({ wishlist: [{ template_id: 't-planner', user_id: 'u-leo', created_at: '2024-06-02T00:00:00Z' }] }),
      signedInAs: MAYA,
    })
    expect(await screen.findByText('No Wishlisted Templates')).toBeInTheDocument()
    expect(screen.queryByRole('article')).not.toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Discover templates' })).toHaveAttribute('href', '/discover')
  })

  it('offers a retry when the wishlist cannot be read, not the empty text', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/dashboard/wishlist', { tables: marketplace(), failing: { wishlist: { ...UNREACHABLE } }, signedInAs: MAYA })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent("We couldn't load your wishlist")
    expect(screen.queryByText('No Wishlisted Templates')).not.toBeInTheDocument()
    fake.failing = {}
    await user.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('No Wishlisted Templates')).toBeInTheDocument()
  })
})
