// Write failures of the template page's actions (spec section 8, template
// actions): the backend refuses the write, the page says so and shows the
// state it had before.
import { describe, expect, it } from 'vitest'
import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'

const REFUSED = { message: 'new row violates row-level security policy', code: '42501' }

describe('template actions whose write fails', () => {
  it("says 'Failed to update upvote' and keeps the count and the heart as they were", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }),
      signedInAs: MAYA,
      failing: { 'template_upvotes:insert': REFUSED },
    })
    const upvote = await screen.findByRole('button', { name: 'Upvote 1' })
    expect(upvote).toHaveAttribute('aria-pressed', 'false')
    await user.click(upvote)
    expect(await screen.findByText('Failed to update upvote')).toBeInTheDocument()
    expect(fake.callsTo('template_upvotes', 'insert')).toHaveLength(1)
    await waitFor(() => expect(upvote).toBeEnabled())
    expect(screen.getByTestId('upvote-count')).toHaveTextContent('1')
    expect(screen.getByRole('button', { name: 'Upvote 1' })).toHaveAttribute('aria-pressed', 'false')
    expect(fake.tables.template_upvotes).toEqual([])
  })

  it('keeps an upvote whose removal fails', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [{ template_id: 't-crm', user_id: MAYA.id }], wishlist: [], template_ratings: [] }),
      signedInAs: MAYA,
      failing: { 'template_upvotes:delete': REFUSED },
    })
    await waitFor(() => expect(screen.getByRole('button', { name: /^Upvote/ })).toHaveAttribute('aria-pressed', 'true'))
    const before = screen.getByTestId('upvote-count').textContent
    await user.click(screen.getByRole('button', { name: /^Upvote/ }))
    expect(await screen.findByText('Failed to update upvote')).toBeInTheDocument()
    expect(fake.callsTo('template_upvotes', 'delete')).toHaveLength(1)
    await waitFor(() => expect(screen.getByRole('button', { name: /^Upvote/ })).toBeEnabled())
    expect(screen.getByTestId('upvote-count')).toHaveTextContent(before!)
    expect(screen.getByRole('button', { name: /^Upvote/ })).toHaveAttribute('aria-pressed', 'true')
  })

  it("says 'Failed to update wishlist' and leaves the template off the wishlist", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }),
      signedInAs: MAYA,
      failing: { 'wishlist:insert': REFUSED },
    })
    const wishlist = await screen.findByRole('button', { name: 'Wishlist' })
    await user.click(wishlist)
    expect(await screen.findByText('Failed to update wishlist')).toBeInTheDocument()
    expect(fake.callsTo('wishlist', 'insert')).toHaveLength(1)
    expect(screen.queryByText('Added to Wishlist')).not.toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Wishlist' })).toBeEnabled())
    expect(screen.getByRole('button', { name: 'Wishlist' })).toHaveAttribute('aria-pressed', 'false')
    expect(screen.queryByRole('button', { name: 'Wishlisted' })).not.toBeInTheDocument()
    expect(fake.tables.wishlist).toEqual([])
  })

  it('keeps a wishlisted template wishlisted when its removal fails', async () => {
    const user = userEvent.setup()
    renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [], wishlist: [{ template_id: 't-crm', user_id: MAYA.id }], template_ratings: [] }),
      signedInAs: MAYA,
      failing: { 'wishlist:delete': REFUSED },
    })
    await user.click(await screen.findByRole('button', { name: 'Wishlisted' }))
    expect(await screen.findByText('Failed to update wishlist')).toBeInTheDocument()
    expect(screen.queryByText('Removed from Wishlist')).not.toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('button', { name: 'Wishlisted' })).toBeEnabled())
    expect(screen.getByRole('button', { name: 'Wishlisted' })).toHaveAttribute('aria-pressed', 'true')
  })
})
