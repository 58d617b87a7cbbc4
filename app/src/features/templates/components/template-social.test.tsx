// The template page's social proof and previews (issue 44, items 7 and 9 and
// the Low items on the rating and the price card): the rating breakdown, the
// written reviews, the creator card with Follow, "Live preview", and an
// owner's price card.
import { describe, expect, it } from 'vitest'
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { renderApp } from '@/testing/render'
import { marketplace, MAYA, template, TEMPLATES } from '@/testing/fixtures'
import type { Row } from '@/testing/fake-supabase'
import { breakdownOf, sharePercent } from '../api/get-rating-breakdown'
import { REVIEWS_PAGE } from '../api/get-template-reviews'
import { PHONE_QUERY } from '@/lib/use-media-query'
import { containedRect, Gallery } from './gallery'
import { LivePreview } from './live-preview'
import { RatingSummary } from './rating-widget'
import { RatingBreakdownView } from './reviews-section'

const review = (n: number, overrides: Row = {}): Row => ({
  id: `r-${String(n).padStart(2, '0')}`,
  template_id: 't-crm',
  rating: 5 - (n % 5),
  review_text: `Review number ${n}`,
  // One day apart: review 1 is the oldest.
  created_at: new Date(Date.UTC(2024, 5, n)).toISOString(),
  reviewer_id: 'u-maya',
  reviewer_username: 'mayachen',
  reviewer_display_name: 'Maya Chen',
  reviewer_avatar_url: null,
  ...overrides,
})

describe('the rating breakdown', () => {
  it('counts each star 5 to 1, fills in the stars nobody gave, and averages with one decimal', () => {
    const b = breakdownOf([
      { rating: 3, ratings: 1 },
      { rating: 5, ratings: 6 },
      { rating: 4, ratings: 3 },
    ])
    expect(b.rows).toEqual([
      { stars: 5, count: 6 },
      { stars: 4, count: 3 },
      { stars: 3, count: 1 },
      { stars: 2, count: 0 },
      { stars: 1, count: 0 },
    ])
    expect(b.total).toBe(10)
    expect(b.average).toBeCloseTo(4.5)
    // Whatever the view answers that is no star is not counted.
    expect(breakdownOf([{ rating: 7, ratings: 2 }, { rating: 0, ratings: 1 }, { rating: 2, ratings: -1 }]).total).toBe(0)
  })

  it('draws each bar as the star\'s share of all ratings', () => {
    expect(sharePercent(6, 10)).toBe(60)
    expect(sharePercent(1, 3)).toBe(33)
    expect(sharePercent(2, 3)).toBe(67)
    expect(sharePercent(0, 0)).toBe(0)
    render(<RatingBreakdownView breakdown={breakdownOf([{ rating: 5, ratings: 3 }, { rating: 1, ratings: 1 }])} />)
    expect(screen.getByTestId('rating-average')).toHaveTextContent('4.0')
    const widths = [5, 4, 3, 2, 1].map((s) => (within(screen.getByTestId(`stars-${s}`)).getByTestId('bar') as HTMLElement).style.width)
    expect(widths).toEqual(['75%', '0%', '0%', '0%', '25%'])
    expect(screen.getByTestId('stars-5')).toHaveTextContent('3 ratings, 75%')
    expect(screen.getByTestId('stars-1')).toHaveTextContent('1 rating, 25%')
    expect(screen.getByText('4 ratings')).toBeInTheDocument()
  })

  it('says "No ratings yet" without any, in the breakdown and beside the title', () => {
    render(<RatingBreakdownView breakdown={breakdownOf([])} />)
    expect(screen.getByTestId('rating-breakdown')).toHaveTextContent('No ratings yet')
    expect(screen.queryByTestId('rating-average')).not.toBeInTheDocument()
    render(<RatingSummary average={0} total={0} />)
    const summary = screen.getByTestId('rating-summary')
    expect(summary).toHaveTextContent('No ratings yet')
    expect(summary).not.toHaveTextContent('0.0')
    expect(summary).not.toHaveTextContent('(0 ratings)')
  })
})

describe('reviews on the template page', () => {
  it('lists the written reviews newest first with the reviewer, the stars and the date, five at a time', async () => {
    const user = userEvent.setup()
    const reviews = Array.from({ length: REVIEWS_PAGE + 2 }, (_, i) => review(i + 1))
    renderApp('/template/t-crm', {
      tables: marketplace({
        templates: TEMPLATES.map((t) => (t.id === 't-crm' ? { ...t, average_rating: 4.2, total_ratings: 9 } : t)),
        template_reviews: reviews,
        template_rating_counts: [
          { template_id: 't-crm', rating: 5, ratings: 4 },
          { template_id: 't-crm', rating: 4, ratings: 3 },
          { template_id: 't-crm', rating: 3, ratings: 2 },
          { template_id: 't-other', rating: 1, ratings: 50 },
        ],
      }),
    })
    const section = await screen.findByRole('region', { name: 'Ratings & reviews' })
    expect(await within(section).findByTestId('rating-average')).toHaveTextContent('4.2')
    expect(within(section).getByTestId('stars-5')).toHaveTextContent('4 ratings, 44%')
    expect(within(section).getByTestId('stars-1')).toHaveTextContent('0 ratings, 0%')
    const list = await within(section).findByRole('list', { name: 'Reviews' })
    const texts = () => within(list).getAllByTestId('review-text').map((p) => p.textContent)
    expect(texts()).toEqual(['Review number 7', 'Review number 6', 'Review number 5', 'Review number 4', 'Review number 3'])
    expect(within(section).getByTestId('reviews-count')).toHaveTextContent('7 reviews')
    const first = within(list).getAllByTestId('review')[0]
    expect(within(first).getByRole('link', { name: 'Maya Chen' })).toHaveAttribute('href', '/profile/mayachen')
    expect(within(first).getByRole('img', { name: 'Rated 3 stars out of 5' })).toBeInTheDocument()
    expect(within(first).getByText('Jun 7, 2024')).toBeInTheDocument()

    await user.click(within(section).getByRole('button', { name: 'Show more reviews' }))
    await waitFor(() => expect(texts()).toHaveLength(7))
    expect(texts().slice(5)).toEqual(['Review number 2', 'Review number 1'])
    expect(within(section).queryByRole('button', { name: 'Show more reviews' })).not.toBeInTheDocument()
  })

  it('says "No ratings yet" for a template nobody rated, and lists nothing', async () => {
    renderApp('/template/t-crm', { tables: marketplace({ template_reviews: [], template_rating_counts: [] }) })
    const section = await screen.findByRole('region', { name: 'Ratings & reviews' })
    await waitFor(() => expect(within(section).getByTestId('rating-breakdown')).toHaveTextContent('No ratings yet'))
    expect(within(section).queryByRole('list', { name: 'Reviews' })).not.toBeInTheDocument()
    expect(screen.getByTestId('rating-summary')).toHaveTextContent('No ratings yet')
  })
})

describe('the creator card', () => {
  it("links to the creator's profile, lists their other templates and asks a visitor to sign in to follow", async () => {
    const user = userEvent.setup()
    renderApp('/template/t-planner', { tables: marketplace({ template_reviews: [], template_rating_counts: [] }) })
    const card = await screen.findByTestId('creator-card')
    expect(within(card).getByTestId('creator-link')).toHaveAttribute('href', '/profile/mayachen')
    expect(within(card).getByText('@mayachen')).toBeInTheDocument()
    // Maya's other published template, not the one on the page.
    const others = await within(card).findByTestId('creator-templates')
    expect(within(others).getAllByRole('link').map((a) => a.getAttribute('href'))).toEqual(['/template/t-budget'])
    await user.click(within(card).getByRole('button', { name: 'Follow' }))
    expect(await screen.findByText('Please sign in to follow creators')).toBeInTheDocument()
    expect(screen.getByText('Authentication Required')).toBeInTheDocument()
  })

  it('follows for a signed-in user, and has no Follow on their own template', async () => {
    const user = userEvent.setup()
    const { fake, unmount } = renderApp('/template/t-crm', {
      tables: marketplace({ template_reviews: [], template_rating_counts: [], followers: [] }),
      signedInAs: MAYA,
      rpc: { is_following: () => ({ data: false }) },
    })
    const card = await screen.findByTestId('creator-card')
    expect(within(card).getByTestId('creator-link')).toHaveAttribute('href', '/profile/leo-builds')
    await user.click(await within(card).findByRole('button', { name: 'Follow' }))
    expect(await within(card).findByRole('button', { name: 'Following' })).toHaveAttribute('aria-pressed', 'true')
    // The spec's toast, besides the button's new label.
    expect(screen.getAllByText('Following')).toHaveLength(2)
    expect(fake.tables.followers).toEqual([{ follower_id: MAYA.id, following_id: 'u-leo' }])
    unmount()

    renderApp('/template/t-planner', { tables: marketplace({ template_reviews: [], template_rating_counts: [] }), signedInAs: MAYA })
    const own = await screen.findByTestId('creator-card')
    expect(within(own).queryByRole('button', { name: /Follow/ })).not.toBeInTheDocument()
  }, 15000)
})

describe('Live preview', () => {
  const link = () => screen.queryByRole('link', { name: /Live preview/ })

  it('opens a web link in a new tab without an opener or a referrer', () => {
    render(<LivePreview url="https://workspace.example/t/planner" />)
    expect(link()).toHaveAttribute('href', 'https://workspace.example/t/planner')
    expect(link()).toHaveAttribute('target', '_blank')
    expect(link()).toHaveAttribute('rel', 'noopener noreferrer')
  })

  it('is not there for anything but a web link', () => {
    for (const url of ['javascript:alert(1)', 'data:text/html,<b>x</b>', 'ftp://files.example/a', '//elsewhere.example/a', 'https://bad host/a', '', null, undefined]) {
      const { unmount } = render(<LivePreview url={url} />)
      expect(link(), String(url)).not.toBeInTheDocument()
      unmount()
    }
  })

  it('shows on a template page with a link and not on one without', async () => {
    const { unmount } = renderApp('/template/t-live', {
      tables: marketplace({
        templates: [...TEMPLATES, template({ id: 't-live', title: 'Live One', template_url: 'https://workspace.example/t/live' })],
      }),
    })
    expect(await screen.findByRole('link', { name: /Live preview/ })).toHaveAttribute('href', 'https://workspace.example/t/live')
    unmount()
    renderApp('/template/t-crm', { tables: marketplace() })
    await screen.findByRole('heading', { level: 1, name: 'Startup CRM' })
    expect(link()).not.toBeInTheDocument()
  })
})

describe("an owner's price card", () => {
  it('says where their copy is, not "Secure checkout"', async () => {
    const paid = {
      id: '0a000000-0000-4000-8000-0000000000d1',
      product_id: 't-crm',
      buyer_id: MAYA.id,
      buyer_email: MAYA.email,
      price_in_cents: 1900,
      payment_status: 'paid',
      download_url: null,
      created_at: '2024-06-02T00:00:00Z',
    }
    const { unmount } = renderApp('/template/t-crm', { tables: marketplace({ orders: [paid] }), signedInAs: MAYA })
    const card = await screen.findByTestId('price-card')
    await within(card).findByText(/You own this template/)
    expect(card).not.toHaveTextContent('Secure checkout')
    expect(card).not.toHaveTextContent('Instant access after purchase')
    expect(within(card).getByRole('link', { name: 'your library' })).toHaveAttribute('href', '/dashboard/library')
    unmount()

    // The same user without the order is offered the purchase, securely.
    renderApp('/template/t-crm', { tables: marketplace({ orders: [] }), signedInAs: MAYA })
    const offer = await screen.findByTestId('price-card')
    expect(await within(offer).findByText('Secure checkout')).toBeInTheDocument()
    expect(offer).not.toHaveTextContent('You own this template')
  })
})

describe('the gallery at the top of the page', () => {
  it('keeps the lens on the picture, not on the letterbox around a contained image', () => {
    // A 16:10 picture in a wider box: bars left and right.
    expect(containedRect(1000, 500, 1600, 1000)).toEqual({ x: 100, y: 0, width: 800, height: 500 })
    // A tall picture in a 16:10 box.
    expect(containedRect(800, 500, 500, 1000)).toEqual({ x: 275, y: 0, width: 250, height: 500 })
    // Not loaded yet: the whole box.
    expect(containedRect(400, 250, 0, 0)).toEqual({ x: 0, y: 0, width: 400, height: 250 })
  })

  it('comes before the title, across the page', async () => {
    renderApp('/template/t-planner', { tables: marketplace({ template_reviews: [], template_rating_counts: [] }) })
    const title = await screen.findByRole('heading', { level: 1, name: 'Calm Weekly Planner' })
    const gallery = screen.getByTestId('gallery')
    expect(gallery.compareDocumentPosition(title) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    // Not inside the column beside the price card: the price card's aside is not its neighbour.
    expect(gallery.closest('.lg\\:grid-cols-\\[1fr_22rem\\]')).toBeNull()
  })

  it('on a phone, is a strip of large images that a swipe or a thumbnail moves', async () => {
    const before = window.matchMedia
    window.matchMedia = ((query: string) => ({ ...before(query), matches: query === PHONE_QUERY })) as typeof window.matchMedia
    try {
      const user = userEvent.setup()
      render(<Gallery images={['/demo/a.svg', '/demo/b.svg', '/demo/c.svg']} title="Planner" />)
      const main = screen.getByTestId('gallery-main')
      const slides = within(main).getAllByRole('img')
      expect(slides.map((img) => img.getAttribute('alt'))).toEqual(['Planner preview 1', 'Planner preview 2', 'Planner preview 3'])
      expect(slides[0]).toHaveAttribute('fetchpriority', 'high')
      expect(slides[0]).not.toHaveAttribute('loading')
      expect(slides[1]).toHaveAttribute('loading', 'lazy')
      expect(screen.queryByTestId('magnifier-lens')).not.toBeInTheDocument()
      expect(screen.getByTestId('gallery-counter')).toHaveTextContent('1 / 3')

      // A swipe to the second image (the strip is 300 px wide).
      const strip = within(main).getByRole('list')
      Object.defineProperty(strip, 'clientWidth', { configurable: true, value: 300 })
      strip.scrollLeft = 300
      fireEvent.scroll(strip)
      expect(screen.getByTestId('gallery-counter')).toHaveTextContent('2 / 3')
      expect(screen.getByRole('button', { name: 'Show image 2' })).toHaveAttribute('aria-pressed', 'true')

      // A thumbnail scrolls the strip to its image.
      const scrolled: number[] = []
      strip.scrollTo = ((options: ScrollToOptions) => scrolled.push(options.left ?? -1)) as typeof strip.scrollTo
      await user.click(screen.getByRole('button', { name: 'Show image 3' }))
      expect(scrolled).toEqual([600])
      expect(screen.getByTestId('gallery-counter')).toHaveTextContent('3 / 3')
    } finally {
      window.matchMedia = before
    }
  })
})
