import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
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
