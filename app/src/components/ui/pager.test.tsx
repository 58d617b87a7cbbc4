// The pager of the browse lists (issue 44, item 4).
import { describe, expect, it } from 'vitest'
import { render, screen, within } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { Pager, pageItems, showingText } from './pager'
import { pageRange, readPage, searchWithPage } from '@/lib/paging'

function renderPager(path: string, props: { page: number; total: number; size: number }) {
  const router = createMemoryRouter([{ path: '*', element: <Pager {...props} label="Templates" /> }], { initialEntries: [path] })
  render(<RouterProvider router={router} />)
  return router
}

describe('pageItems', () => {
  it('shows the first, the last and the neighbours of the current page, gaps as null', () => {
    expect(pageItems(1, 9)).toEqual([1, 2, null, 9])
    expect(pageItems(5, 9)).toEqual([1, null, 4, 5, 6, null, 9])
    expect(pageItems(9, 9)).toEqual([1, null, 8, 9])
    // A gap of one page shows the page.
    expect(pageItems(4, 9)).toEqual([1, 2, 3, 4, 5, null, 9])
    expect(pageItems(1, 1)).toEqual([1])
    expect(pageItems(2, 3)).toEqual([1, 2, 3])
  })
})

describe('showingText and the page maths', () => {
  it('counts from 1 with an en dash and the true total', () => {
    expect(showingText(1, 24, 211)).toBe('Showing 1–24 of 211')
    expect(showingText(9, 24, 211)).toBe('Showing 193–211 of 211')
    expect(showingText(1, 24, 5)).toBe('Showing 1–5 of 5')
    expect(showingText(1, 24, 0)).toBe('Showing 0 of 0')
    expect(showingText(1, 24, 1234)).toBe('Showing 1–24 of 1,234')
  })

  it('reads ?page= safely and ranges a page', () => {
    expect(readPage(new URLSearchParams('page=3'))).toBe(3)
    for (const bad of ['', 'page=0', 'page=-2', 'page=abc', 'page=2.5', 'page=1e3']) expect(readPage(new URLSearchParams(bad))).toBe(1)
    expect(pageRange(1, 24)).toEqual([0, 23])
    expect(pageRange(3, 24)).toEqual([48, 71])
    expect(searchWithPage(new URLSearchParams('sort=oldest&page=4'), 1)).toBe('?sort=oldest')
    expect(searchWithPage(new URLSearchParams('sort=oldest'), 2)).toBe('?sort=oldest&page=2')
  })
})

describe('Pager', () => {
  it('links every page with the other parameters kept, and marks the current one', () => {
    renderPager('/discover?price=free&page=2', { page: 2, total: 211, size: 24 })
    expect(screen.getByTestId('showing')).toHaveTextContent('Showing 25–48 of 211')
    const nav = screen.getByRole('navigation', { name: 'Templates pages' })
    expect(within(nav).getByRole('link', { name: 'Page 2' })).toHaveAttribute('aria-current', 'page')
    expect(within(nav).getByRole('link', { name: 'Page 3' })).toHaveAttribute('href', '/discover?price=free&page=3')
    expect(within(nav).getByRole('link', { name: 'Page 9' })).toHaveAttribute('href', '/discover?price=free&page=9')
    // Page 1 has no page parameter.
    expect(within(nav).getByRole('link', { name: 'Previous' })).toHaveAttribute('href', '/discover?price=free')
    expect(within(nav).getByRole('link', { name: 'Next' })).toHaveAttribute('href', '/discover?price=free&page=3')
  })

  it('has no Previous link on the first page and no Next link on the last', () => {
    renderPager('/discover', { page: 1, total: 50, size: 24 })
    expect(screen.queryByRole('link', { name: 'Previous' })).not.toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Next' })).toHaveAttribute('href', '/discover?page=2')
    expect(screen.getAllByRole('link', { name: /^Page / }).map((a) => a.textContent)).toEqual(['1', '2', '3'])
  })

  it('shows only the count when everything fits on one page', () => {
    renderPager('/discover', { page: 1, total: 7, size: 24 })
    expect(screen.getByTestId('showing')).toHaveTextContent('Showing 1–7 of 7')
    expect(screen.queryByRole('navigation')).not.toBeInTheDocument()
  })
})
