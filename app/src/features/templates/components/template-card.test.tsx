// A card's rating (issue 44): stars with one decimal, or "No ratings yet",
// never "0.0 (0 ratings)".
import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import type { Template } from '@/lib/types'
import { template as row } from '@/testing/fixtures'
import { TemplateCard } from './template-card'

function card(overrides: Record<string, unknown>) {
  const t = { ...row({ id: 't-1', title: 'Calm Planner', ...overrides }), profile: null, category: null, upvote_count: 0 } as unknown as Template
  const router = createMemoryRouter([{ path: '*', element: <TemplateCard template={t} /> }])
  render(<RouterProvider router={router} />)
}

describe('TemplateCard rating', () => {
  it('says "No ratings yet" for an unrated template', () => {
    card({ average_rating: 0, total_ratings: 0 })
    expect(screen.getByTestId('card-rating')).toHaveTextContent('No ratings yet')
    expect(screen.queryByText(/0\.0/)).not.toBeInTheDocument()
  })

  it('shows the average with one decimal and the number of ratings', () => {
    card({ average_rating: '4.25', total_ratings: 12 })
    const rating = screen.getByTestId('card-rating')
    expect(rating).toHaveTextContent('4.3')
    expect(rating).toHaveTextContent('(12)')
    expect(rating).toHaveTextContent(/Rated\s*4\.3\s*out of 5,\s*\(12\)\s*ratings/)
    expect(rating).not.toHaveTextContent('No ratings yet')
  })

  it('says "1 rating" in the singular', () => {
    card({ average_rating: 5, total_ratings: 1 })
    expect(screen.getByTestId('card-rating')).toHaveTextContent(/5\.0.*\(1\)\s*rating$/)
  })
})
