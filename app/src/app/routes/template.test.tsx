import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA, LEO, template, TEMPLATES } from '@/testing/fixtures'
import { FakeSupabase } from '@/testing/fake-supabase'
import { browser } from '@/lib/browser'
import { lensGeometry } from '@/features/templates/components/gallery'
import { PHONE_QUERY, REDUCED_MOTION_QUERY } from '@/lib/use-media-query'

const EVIL_ABOUT = [
  '## Hello',
  '',
  '<script>window.__pwned = true</script>',
  '',
  '<img src=x onerror="window.__pwned = true">',
  '',
  '[click me](javascript:window.__pwned=true)',
  '',
  '**bold** and a [safe link](https://example.com)',
].join('\n')

describe('template detail', () => {
  // About's Markdown renderer is a lazy chunk in the page; loaded here once,
  // so that a busy machine's first import of it is not timed as a test's.
  beforeAll(() => import('@/components/ui/markdown'))

  it('renders About as Markdown without scripts or javascript: links', async () => {
    renderApp('/template/t-evil', {
      tables: marketplace({ templates: [...TEMPLATES, template({ id: 't-evil', title: 'Evil', about_template: EVIL_ABOUT })] }),
    })
    const about = await screen.findByRole('region', { name: 'About this template' })
    expect(within(about).getByRole('heading', { name: 'Hello' })).toBeInTheDocument()
    expect(within(about).getByText('bold').tagName).toBe('STRONG')
    expect(about.querySelector('script')).toBeNull()
    expect(about.querySelector('[onerror]')).toBeNull()
    const click = within(about).getByText('click me')
    expect(click.closest('a')?.getAttribute('href') ?? '').not.toMatch(/javascript:/i)
    expect(within(about).getByRole('link', { name: 'safe link' })).toHaveAttribute('href', 'https://example.com')
    expect((window as unknown as { __pwned?: boolean }).__pwned).toBeUndefined()
  })

  it('says "1 view" and "1 download" in the singular', async () => {
    renderApp('/template/t-one', {
      tables: marketplace({ templates: [template({ id: 't-one', title: 'Single Sheet', total_views: 1, downloads_count: 1 })] }),
    })
    expect(await screen.findByRole('heading', { level: 1, name: 'Single Sheet' })).toBeInTheDocument()
    expect(screen.getByText('1 view')).toBeInTheDocument()
    expect(screen.getByText('1 download')).toBeInTheDocument()
  })

  it('shows the parts of the page with defaults for missing lists', async () => {
    renderApp('/template/t-planner', {
      tables: marketplace({ templates: [template({ id: 't-planner', title: 'Calm Weekly Planner', description: '', tags: ['planner'], preview_images: ['/demo/a.svg', '/demo/b.svg'], total_views: 5400, downloads_count: 1240 })] }),
    })
    expect(await screen.findByRole('heading', { level: 1, name: 'Calm Weekly Planner' })).toBeInTheDocument()
    expect(screen.getByText('Real Template')).toBeInTheDocument()
    expect(screen.getByText('No description available for this template.')).toBeInTheDocument()
    expect(screen.getByText('Video tutorial')).toBeInTheDocument()
    expect(screen.getByText('A free workspace-app account')).toBeInTheDocument()
    expect(screen.getByText('5,400 views')).toBeInTheDocument()
    expect(screen.getByText('1,240 downloads')).toBeInTheDocument()
    expect(screen.getByTestId('price')).toHaveTextContent('Free')
    expect(screen.getByRole('link', { name: 'Back to Templates' })).toHaveAttribute('href', '/discover')
    // Gallery: three images, four-column thumbnails.
    expect(screen.getAllByRole('button', { name: /Show image/ })).toHaveLength(3)
  })

  it('magnifies 10x under a 200 px lens', async () => {
    renderApp('/template/t-planner', { tables: marketplace() })
    const main = await screen.findByTestId('gallery-main')
    main.getBoundingClientRect = () => ({ left: 0, top: 0, width: 400, height: 250, right: 400, bottom: 250, x: 0, y: 0, toJSON: () => ({}) })
    fireEvent.mouseMove(main, { clientX: 100, clientY: 50 })
    const lens = screen.getByTestId('magnifier-lens')
    expect(lens.style.width).toBe('200px')
    expect(lens.style.backgroundSize).toBe('4000px 2500px')
    expect(lens.style.backgroundPosition).toBe('-900px -400px')
    fireEvent.mouseLeave(main)
    expect(screen.queryByTestId('magnifier-lens')).not.toBeInTheDocument()
    expect(lensGeometry(100, 50, 400, 250).left).toBe(0)
  })

  it('shows no magnifier lens under prefers-reduced-motion (issue 24)', async () => {
    const before = window.matchMedia
    window.matchMedia = ((query: string) => ({
      ...before(query),
      matches: query === REDUCED_MOTION_QUERY,
      addEventListener: () => {},
      removeEventListener: () => {},
    })) as typeof window.matchMedia
    try {
      renderApp('/template/t-planner', { tables: marketplace() })
      const main = await screen.findByTestId('gallery-main')
      main.getBoundingClientRect = () => ({ left: 0, top: 0, width: 400, height: 250, right: 400, bottom: 250, x: 0, y: 0, toJSON: () => ({}) })
      fireEvent.mouseMove(main, { clientX: 100, clientY: 50 })
      expect(screen.queryByTestId('magnifier-lens')).not.toBeInTheDocument()
    } finally {
      window.matchMedia = before
    }
  })

  it('shows Template Not Found for an unknown id', async () => {
    renderApp('/template/nope', { tables: marketplace() })
    expect(await screen.findByText('Template Not Found')).toBeInTheDocument()
    expect(screen.getByText("The template you're looking for doesn't exist or has been removed.")).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Discover' })).toHaveAttribute('href', '/discover')
  })

  it('asks a guest for an e-mail to download a free template', async () => {
    const user = userEvent.setup()
    const openTab = vi.spyOn(browser, 'openTab').mockImplementation(() => {})
    const assign = vi.spyOn(browser, 'assign')
    const { fake } = renderApp('/template/t-planner', {
      tables: marketplace(),
      functions: { 'create-free-order': () => ({ data: { downloadUrl: 'https://files.example/planner.zip' } }) },
    })
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    const dialog = await screen.findByRole('dialog', { name: 'Get Your Free Template' })
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    expect(within(dialog).getByText('Please enter your email.')).toBeInTheDocument()
    expect(fake.callsTo('fn:create-free-order')).toHaveLength(0)
    await user.type(within(dialog).getByLabelText('Email'), 'guest@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    // A web link that is not this site's storage opens in a new tab; this tab stays.
    await waitFor(() => expect(openTab).toHaveBeenCalledWith('https://files.example/planner.zip'))
    expect(assign).not.toHaveBeenCalled()
    expect(fake.callsTo('fn:create-free-order')[0].payload).toEqual({ product_id: 't-planner', buyer_email: 'guest@example.com' })
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    // In case the browser held the tab back, the link is offered again, in a new tab too.
    const again = within(screen.getByTestId('price-card')).getByRole('link', { name: 'Open it again' })
    expect(again).toHaveAttribute('href', 'https://files.example/planner.zip')
    expect(again).toHaveAttribute('target', '_blank')
    expect(again).toHaveAttribute('rel', 'noopener noreferrer')
  })

  it('lets a guest cancel the free-download modal', async () => {
    const user = userEvent.setup()
    renderApp('/template/t-planner', { tables: marketplace() })
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    const dialog = await screen.findByRole('dialog', { name: 'Get Your Free Template' })
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
  })

  it('shows the server error when the free order fails', async () => {
    const user = userEvent.setup()
    renderApp('/template/t-planner', {
      tables: marketplace(),
      functions: { 'create-free-order': () => ({ data: { error: 'Too many downloads today' } }) },
    })
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    const dialog = await screen.findByRole('dialog')
    await user.type(within(dialog).getByLabelText('Email'), 'guest@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    expect(await screen.findByText('Too many downloads today')).toBeInTheDocument()
  })

  it('never follows a download link that is not a web link', async () => {
    const user = userEvent.setup()
    const assign = vi.spyOn(browser, 'assign').mockImplementation(() => {})
    const openTab = vi.spyOn(browser, 'openTab').mockImplementation(() => {})
    const download = vi.spyOn(browser, 'download').mockImplementation(() => {})
    renderApp('/template/t-planner', {
      tables: marketplace(),
      functions: { 'create-free-order': () => ({ data: { downloadUrl: 'javascript:window.__pwned=true' } }) },
    })
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    const dialog = await screen.findByRole('dialog')
    await user.type(within(dialog).getByLabelText('Email'), 'guest@example.com')
    await user.click(within(dialog).getByRole('button', { name: 'Send Download Link' }))
    expect(await screen.findByText('This download link cannot be opened.')).toBeInTheDocument()
    expect(assign).not.toHaveBeenCalled()
    expect(openTab).not.toHaveBeenCalled()
    expect(download).not.toHaveBeenCalled()
  })

  it('offers its creator no heart or stars on their own template', async () => {
    const { fake } = renderApp('/template/t-planner', { tables: marketplace({ template_upvotes: [], template_ratings: [] }), signedInAs: MAYA })
    expect(await screen.findByText('You cannot upvote or rate your own template.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: /^Upvote/ })).toBeDisabled()
    expect(screen.queryByRole('radiogroup', { name: 'Your rating' })).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Submit Rating' })).not.toBeInTheDocument()
    expect(fake.callsTo('template_upvotes', 'insert')).toHaveLength(0)
  })

  it('downloads directly for a signed-in user after the 1.2 s preparing state', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime })
    const download = vi.spyOn(browser, 'download').mockImplementation(() => {})
    const openTab = vi.spyOn(browser, 'openTab')
    const file = `${window.location.origin}/storage/v1/object/sign/template-files/u-leo/crm.zip?token=t&download=crm.zip`
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ templates: [...TEMPLATES.filter((t) => t.id !== 't-crm'), template({ id: 't-crm', title: 'Free CRM', user_id: 'u-leo' })] }),
      signedInAs: MAYA,
      functions: { 'create-free-order': () => ({ data: { downloadUrl: file } }) },
    })
    await user.click(await screen.findByRole('button', { name: 'Download Free' }))
    expect(screen.getByRole('button', { name: 'Processing...' })).toBeDisabled()
    expect(screen.getByText('Preparing your download...')).toBeInTheDocument()
    act(() => vi.advanceTimersByTime(1000))
    expect(fake.callsTo('fn:create-free-order')).toHaveLength(0)
    act(() => vi.advanceTimersByTime(300))
    // A file of this site's storage is saved as an attachment: no tab opens, the page stays.
    await waitFor(() => expect(download).toHaveBeenCalledWith(file))
    expect(openTab).not.toHaveBeenCalled()
    expect(screen.getByText('Your download has started.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Download again' })).toHaveAttribute('download')
    expect(fake.callsTo('fn:create-free-order')[0].payload).toEqual({ product_id: 't-crm', buyer_email: MAYA.email })
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument()
  })

  it('sends a guest buying a paid template to checkout with the e-mail', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/template/t-crm', { tables: marketplace() })
    expect(await screen.findByTestId('price')).toHaveTextContent('$19.00')
    await user.click(screen.getByRole('button', { name: 'Purchase & Download' }))
    expect(await screen.findByText('Please enter your email.')).toBeInTheDocument()
    await user.type(screen.getByLabelText('Email for your receipt and download'), 'buyer@example.com')
    await user.click(screen.getByRole('button', { name: 'Purchase & Download' }))
    await waitFor(() => expect(here(router)).toBe('/checkout?templateId=t-crm&buyerEmail=buyer%40example.com'), { timeout: 3000 })
  })

  it('says Secure checkout for paid templates only', async () => {
    const { unmount } = renderApp('/template/t-planner', { tables: marketplace() })
    expect(await screen.findByTestId('price', {}, { timeout: 5000 })).toHaveTextContent('Free')
    expect(screen.getByText('Instant access after download')).toBeInTheDocument()
    expect(screen.queryByText('Secure checkout')).not.toBeInTheDocument()
    unmount()
    renderApp('/template/t-crm', { tables: marketplace() })
    expect(await screen.findByTestId('price', {}, { timeout: 5000 })).toHaveTextContent('$19.00')
    expect(screen.getByText('Secure checkout')).toBeInTheDocument()
  }, 15000)

  it('offers the owner of a paid template Download (their order), not Purchase & Download', async () => {
    const order = (id: string, payment_status: string, created_at: string) => ({
      id,
      product_id: 't-crm',
      buyer_id: MAYA.id,
      buyer_email: MAYA.email,
      price_in_cents: 1900,
      payment_status,
      download_url: null,
      created_at,
    })
    // A failed attempt first, then the paid order: only the paid one owns.
    const paid = order('0a000000-0000-4000-8000-0000000000b2', 'paid', '2024-06-02T00:00:00Z')
    const { unmount } = renderApp('/template/t-crm', {
      tables: marketplace({ orders: [order('0a000000-0000-4000-8000-0000000000b1', 'failed', '2024-06-01T00:00:00Z'), paid] }),
      signedInAs: MAYA,
    })
    const download = await screen.findByRole('link', { name: 'Download' }, { timeout: 5000 })
    expect(download).toHaveAttribute('href', `/download/${paid.id}`)
    expect(screen.getByText(/You own this template/)).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Purchase & Download' })).not.toBeInTheDocument()
    unmount()

    // An unpaid order owns nothing: the purchase is still offered.
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ orders: [order('0a000000-0000-4000-8000-0000000000b3', 'pending', '2024-06-03T00:00:00Z')] }),
      signedInAs: MAYA,
    })
    expect(await screen.findByRole('button', { name: 'Purchase & Download' }, { timeout: 5000 })).toBeInTheDocument()
    await waitFor(() => expect(fake.callsTo('orders', 'select')).toHaveLength(1))
    await act(async () => {})
    expect(screen.queryByText(/You own this template/)).not.toBeInTheDocument()
    expect(screen.queryByRole('link', { name: 'Download' })).not.toBeInTheDocument()
  }, 15000)

  it('rejects a malformed guest e-mail in the price card, before checkout', async () => {
    const user = userEvent.setup()
    const { router, fake } = renderApp('/template/t-crm', { tables: marketplace() })
    expect(await screen.findByTestId('price', {}, { timeout: 5000 })).toHaveTextContent('$19.00')
    const field = screen.getByLabelText('Email for your receipt and download')
    for (const bad of ['buyer', 'buyer @example.com', 'a@b@c']) {
      await user.clear(field)
      await user.type(field, bad)
      await user.click(screen.getByRole('button', { name: 'Purchase & Download' }))
      expect((await screen.findAllByText('Please enter a valid email address')).length).toBeGreaterThan(0)
      // Refused at once: no preparing state, no move to /checkout.
      expect(screen.queryByText('Preparing your download...')).not.toBeInTheDocument()
      expect(here(router)).toBe('/template/t-crm')
    }
    expect(fake.callsTo('fn:create-payment-intent')).toHaveLength(0)
  }, 15000)

  it('asks visitors to sign in to upvote, wishlist and rate', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-planner', { tables: marketplace() })
    await user.click(await screen.findByRole('button', { name: /Upvote/ }))
    expect(await screen.findByText('Please sign in to upvote templates')).toBeInTheDocument()
    await user.click(screen.getByRole('button', { name: 'Wishlist' }))
    expect(await screen.findByText('Please sign in to use wishlist')).toBeInTheDocument()
    await user.click(screen.getByRole('radio', { name: '4 stars' }))
    expect(await screen.findByText('Please sign in to rate templates')).toBeInTheDocument()
    expect(screen.getByText('Sign in required')).toBeInTheDocument()
    expect(fake.callsTo('template_upvotes', 'insert')).toHaveLength(0)
  })

  it('upvotes, wishlists and rates for a signed-in user', async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', { tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }), signedInAs: MAYA })
    const upvote = await screen.findByRole('button', { name: 'Upvote 1' })
    await user.click(upvote)
    await waitFor(() => expect(screen.getByTestId('upvote-count')).toHaveTextContent('2'))
    expect(fake.tables.template_upvotes).toEqual([{ template_id: 't-crm', user_id: MAYA.id }])
    await user.click(screen.getByRole('button', { name: 'Wishlist' }))
    expect(await screen.findByText('Added to Wishlist')).toBeInTheDocument()
    const submit = screen.getByRole('button', { name: 'Submit Rating' })
    expect(submit).toBeDisabled()
    await user.click(screen.getByRole('radio', { name: '5 stars' }))
    await user.type(screen.getByLabelText('Review (optional)'), '   ')
    await user.click(submit)
    expect(await screen.findByText('Rating submitted')).toBeInTheDocument()
    expect(screen.getByText('Thank you for your rating!')).toBeInTheDocument()
    expect(fake.tables.template_ratings).toEqual([{ template_id: 't-crm', user_id: MAYA.id, rating: 5, review_text: null }])
  })

  it('copies the link to share', async () => {
    const user = userEvent.setup()
    const copy = vi.spyOn(browser, 'copy').mockResolvedValue()
    renderApp('/template/t-planner', { tables: marketplace() })
    await user.click(await screen.findByRole('button', { name: 'Share' }))
    expect(await screen.findByText('Link Copied')).toBeInTheDocument()
    expect(screen.getByText('Template link copied to clipboard.')).toBeInTheDocument()
    expect(copy).toHaveBeenCalled()
  })

  it('tracks a view and reads the template again 1 s later', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const { fake } = renderApp('/template/t-planner', {
      tables: marketplace(),
      functions: { 'track-template-view': () => ({ data: { ok: true } }) },
    })
    await screen.findByRole('heading', { level: 1, name: 'Calm Weekly Planner' })
    await waitFor(() => expect(fake.callsTo('fn:track-template-view')).toHaveLength(1))
    expect(fake.callsTo('fn:track-template-view')[0].payload).toMatchObject({ template_id: 't-planner', ip_address: null })
    const reads = () => fake.callsTo('templates', 'select').filter((c) => c.filters.includes('id=eq.t-planner')).length
    const before = reads()
    act(() => vi.advanceTimersByTime(700))
    expect(reads()).toBe(before)
    act(() => vi.advanceTimersByTime(400))
    await waitFor(() => expect(reads()).toBe(before + 1))
  })

  it('suggests templates from the same category first, then the same author', async () => {
    renderApp('/template/t-planner', {
      tables: marketplace({
        templates: [
          ...TEMPLATES,
          template({ id: 't-focus', title: 'Focus Board', category_id: 'c-prod', user_id: 'u-leo', downloads_count: 10 }),
        ],
      }),
    })
    const section = await screen.findByRole('region', { name: 'You May Also Like' })
    await waitFor(() => expect(within(section).getAllByRole('article')).toHaveLength(3))
    const names = within(section).getAllByRole('heading', { level: 3 }).map((h) => h.textContent)
    expect(names).toEqual(['Focus Board', 'Budget Planner', 'Startup CRM'])
  })

  it('reads what may not exist without a 406: a signed-in visit to a template not yet rated', async () => {
    // `.single()` answers 406 when no row matches, and the browser prints it
    // in the console; reads that may find nothing use `maybeSingle()`.
    const fake = new FakeSupabase({ tables: marketplace({ template_upvotes: [], wishlist: [], template_ratings: [] }), signedInAs: MAYA })
    const singles: string[] = []
    const from = fake.from
    fake.from = (table: string) => {
      const query = from(table)
      const single = query.single.bind(query)
      query.single = () => {
        singles.push(table)
        return single()
      }
      return query
    }
    renderApp('/template/t-crm', fake)
    expect(await screen.findByRole('button', { name: 'Submit Rating' }, { timeout: 5000 })).toBeInTheDocument()
    await waitFor(() => expect(fake.callsTo('template_ratings').length).toBeGreaterThan(0))
    expect(singles).toEqual([])
  }, 15000)
})

describe('live upvote count', () => {
  /** What the server's count view says for a template, as the tests move it. */
  function setServerCount(fake: FakeSupabase, templateId: string, count: number) {
    const row = fake.tables.template_upvote_counts.find((r) => r.template_id === templateId)
    if (row) row.upvote_count = count
    else fake.tables.template_upvote_counts.push({ template_id: templateId, upvote_count: count })
  }
  const rereads = (fake: FakeSupabase, templateId: string) =>
    fake.callsTo('template_upvote_counts', 'select').filter((c) => c.filters.includes(`template_id=eq.${templateId}`)).length

  it("shows other visitors' upvotes and their removal without a reload", async () => {
    const { fake, router } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [{ template_id: 't-crm', user_id: LEO.id }] }),
    })
    await screen.findByRole('button', { name: 'Upvote 1' })
    await waitFor(() => expect(fake.liveChannels).toHaveLength(1))
    expect(fake.liveChannels[0].bindings).toMatchObject([
      { event: '*', schema: 'public', table: 'template_upvotes', filter: 'template_id=eq.t-crm' },
    ])

    // Another visitor upvotes: the page re-reads the count once, however
    // many changes arrive together.
    fake.tables.template_upvotes.push({ template_id: 't-crm', user_id: 'u-kim' }, { template_id: 't-crm', user_id: 'u-ava' })
    setServerCount(fake, 't-crm', 3)
    expect(fake.emitChange({ table: 'template_upvotes', eventType: 'INSERT', new: { template_id: 't-crm', user_id: 'u-kim' } })).toBe(1)
    fake.emitChange({ table: 'template_upvotes', eventType: 'INSERT', new: { template_id: 't-crm', user_id: 'u-ava' } })
    await waitFor(() => expect(screen.getByTestId('upvote-count')).toHaveTextContent('3'))
    expect(screen.getByRole('button', { name: 'Upvote 3' })).toBeInTheDocument()
    expect(rereads(fake, 't-crm')).toBe(1)

    // A removal carries only the old row's key.
    fake.tables.template_upvotes = fake.tables.template_upvotes.filter((r) => r.user_id !== 'u-kim')
    setServerCount(fake, 't-crm', 2)
    fake.emitChange({ table: 'template_upvotes', eventType: 'DELETE', old: { template_id: 't-crm', user_id: 'u-kim' } })
    await waitFor(() => expect(screen.getByTestId('upvote-count')).toHaveTextContent('2'))

    // Upvotes of other templates do not reach this page.
    expect(fake.emitChange({ table: 'template_upvotes', eventType: 'INSERT', new: { template_id: 't-planner', user_id: 'u-kim' } })).toBe(0)

    // Leaving the page ends the subscription.
    act(() => void router.navigate('/discover'))
    await waitFor(() => expect(fake.removeChannel).toHaveBeenCalledTimes(1))
    expect(fake.channels).toHaveLength(0)
  })

  it("does not count the user's own upvote twice", async () => {
    const user = userEvent.setup()
    const { fake } = renderApp('/template/t-crm', {
      tables: marketplace({ template_upvotes: [{ template_id: 't-crm', user_id: LEO.id }] }),
      signedInAs: MAYA,
    })
    await user.click(await screen.findByRole('button', { name: 'Upvote 1' }))
    await waitFor(() => expect(screen.getByTestId('upvote-count')).toHaveTextContent('2'))
    await waitFor(() => expect(fake.liveChannels).toHaveLength(1))
    // The server now counts Maya's upvote and reports her own row back.
    setServerCount(fake, 't-crm', 2)
    fake.emitChange({ table: 'template_upvotes', eventType: 'INSERT', new: { template_id: 't-crm', user_id: MAYA.id } })
    await waitFor(() => expect(rereads(fake, 't-crm')).toBe(1))
    await waitFor(() => expect(screen.getByRole('button', { name: 'Upvote 2' })).toHaveAttribute('aria-pressed', 'true'))
    expect(screen.getByTestId('upvote-count')).toHaveTextContent('2')

    // And her removal brings it back to one, not zero.
    await user.click(screen.getByRole('button', { name: 'Upvote 2' }))
    await waitFor(() => expect(screen.getByTestId('upvote-count')).toHaveTextContent('1'))
    setServerCount(fake, 't-crm', 1)
    fake.emitChange({ table: 'template_upvotes', eventType: 'DELETE', old: { template_id: 't-crm', user_id: MAYA.id } })
    await waitFor(() => expect(rereads(fake, 't-crm')).toBe(2))
    expect(screen.getByRole('button', { name: 'Upvote 1' })).toHaveAttribute('aria-pressed', 'false')
  })

  it('keeps the count when the re-read fails', async () => {
    const { fake } = renderApp('/template/t-crm', { tables: marketplace() })
    await screen.findByRole('button', { name: 'Upvote 1' })
    await waitFor(() => expect(fake.liveChannels).toHaveLength(1))
    fake.failing.template_upvote_counts = { message: 'connection reset' }
    fake.emitChange({ table: 'template_upvotes', eventType: 'INSERT', new: { template_id: 't-crm', user_id: 'u-kim' } })
    await waitFor(() => expect(rereads(fake, 't-crm')).toBe(1))
    expect(screen.getByTestId('upvote-count')).toHaveTextContent('1')
  })
})

describe('sticky action bar on a phone', () => {
  const desktopMatchMedia = window.matchMedia
  const phone = (matches: boolean) => {
    window.matchMedia = ((query: string) => ({
      ...desktopMatchMedia(query),
      matches: matches && query === PHONE_QUERY,
      addEventListener: () => {},
      removeEventListener: () => {},
    })) as typeof window.matchMedia
  }
  afterEach(() => {
    window.matchMedia = desktopMatchMedia
  })

  it('shows the price and the price card’s main action, which acts the same (a guest buying is sent to the e-mail field)', async () => {
    phone(true)
    const user = userEvent.setup()
    const { router } = renderApp('/template/t-crm', { tables: marketplace() })
    const bar = await screen.findByRole('region', { name: 'Quick actions' }, { timeout: 5000 })
    expect(bar).toHaveTextContent('Price: $19.00')
    await user.click(within(bar).getByRole('button', { name: 'Purchase & Download' }))
    expect(await screen.findByText('Please enter your email.')).toBeInTheDocument()
    expect(screen.getByLabelText('Email for your receipt and download')).toHaveFocus()
    await user.type(screen.getByLabelText('Email for your receipt and download'), 'buyer@example.com')
    await user.click(within(bar).getByRole('button', { name: 'Purchase & Download' }))
    await waitFor(() => expect(here(router)).toBe('/checkout?templateId=t-crm&buyerEmail=buyer%40example.com'), { timeout: 3000 })
  }, 15000)

  it('offers a free template’s Download Free, and the owner of a paid one their Download', async () => {
    phone(true)
    const { unmount } = renderApp('/template/t-planner', { tables: marketplace() })
    const bar = await screen.findByRole('region', { name: 'Quick actions' }, { timeout: 5000 })
    expect(bar).toHaveTextContent('Free')
    expect(within(bar).getByRole('button', { name: 'Download Free' })).toBeInTheDocument()
    unmount()

    const paid = {
      id: '0a000000-0000-4000-8000-0000000000c1',
      product_id: 't-crm',
      buyer_id: MAYA.id,
      buyer_email: MAYA.email,
      price_in_cents: 1900,
      payment_status: 'paid',
      download_url: null,
      created_at: '2024-06-02T00:00:00Z',
    }
    renderApp('/template/t-crm', { tables: marketplace({ orders: [paid] }), signedInAs: MAYA })
    const owned = await screen.findByRole('region', { name: 'Quick actions' }, { timeout: 5000 })
    expect(await within(owned).findByRole('link', { name: 'Download' }, { timeout: 5000 })).toHaveAttribute('href', `/download/${paid.id}`)
    expect(within(owned).queryByRole('button', { name: 'Purchase & Download' })).not.toBeInTheDocument()
  }, 15000)

  it('is not there on a wider screen', async () => {
    phone(false)
    renderApp('/template/t-crm', { tables: marketplace() })
    expect(await screen.findByTestId('price', {}, { timeout: 5000 })).toHaveTextContent('$19.00')
    expect(screen.queryByRole('region', { name: 'Quick actions' })).not.toBeInTheDocument()
    expect(screen.getAllByRole('button', { name: 'Purchase & Download' })).toHaveLength(1)
  })
})
