import { describe, expect, it } from 'vitest'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import { RatingSummary } from './rating-widget'

describe('RatingSummary', () => {
  it('says one rating in the singular', () => {
    render(<RatingSummary average={4} total={1} />)
    expect(screen.getByText('(1 rating)')).toBeInTheDocument()
  })

  it('says a large count in the plural, grouped as every count is', () => {
    render(<RatingSummary average={4.5} total={1234} />)
    expect(screen.getByText('(1,234 ratings)')).toBeInTheDocument()
  })
})

describe('RatingWidget when the rating cannot be saved', () => {
  it("says 'Failed to submit rating. Please try again.' and keeps the stars and the review for another try", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }),
      signedInAs: MAYA,
      failing: { 'template_ratings:upsert': { message: 'new row violates row-level security policy', code: '42501' } },
    })
    await user.click(await screen.findByRole('radio', { name: '4 stars' }))
    await user.type(screen.getByLabelText('Review (optional)'), 'Solid CRM')
    await user.click(screen.getByRole('button', { name: 'Submit Rating' }))
    expect(await screen.findByText('Failed to submit rating. Please try again.')).toBeInTheDocument()
    expect(fake.callsTo('template_ratings', 'upsert')).toHaveLength(1)
    expect(screen.queryByText('Rating submitted')).not.toBeInTheDocument()
    expect(fake.tables.template_ratings).toEqual([])
    // Nothing was saved: still a new rating, with what the visitor chose.
    expect(screen.getByRole('heading', { name: 'Rate this template' })).toBeInTheDocument()
    expect(screen.getByRole('radio', { name: '4 stars' })).toHaveAttribute('aria-checked', 'true')
    expect(screen.getByLabelText('Review (optional)')).toHaveValue('Solid CRM')
    await waitFor(() => expect(screen.getByRole('button', { name: 'Submit Rating' })).toBeEnabled())
  })
})
