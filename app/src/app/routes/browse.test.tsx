import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA, PROFILES, template, TEMPLATES } from '@/testing/fixtures'

describe('categories', () => {
  it('lists categories by name with their template counts', async () => {
    renderApp('/categories', { tables: marketplace({ templates: [...TEMPLATES, template({ id: 't-2', title: 'Second', category_id: 'c-prod' })] }) })
    const links = await screen.findAllByRole('link', { name: /template/ })
    const main = within(screen.getByRole('main'))
    expect(links.length).toBeGreaterThan(0)
    const business = main.getByRole('heading', { name: 'Business' }).closest('a')!
    expect(business).toHaveAttribute('href', '/category/business')
    await waitFor(() => expect(within(business).getByText('1 template')).toBeInTheDocument())
    const productivity = main.getByRole('heading', { name: 'Productivity' }).closest('a')!
    expect(within(productivity).getByText('2 templates')).toBeInTheDocument()
    expect(main.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Business', 'Finance', 'Productivity'])
  })

  it('reports a failed load', async () => {
    renderApp('/categories', { failing: { categories: { message: 'down' } } })
    expect(await screen.findByText('Failed to load categories')).toBeInTheDocument()
  })
})

describe('category page', () => {
  it('shows the category and its templates', async () => {
    renderApp('/category/business', { tables: marketplace() })
    expect(await screen.findByRole('heading', { level: 1, name: 'Business' })).toBeInTheDocument()
    expect(await screen.findByText('1 template found')).toBeInTheDocument()
    expect(screen.getByText('Startup CRM')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to Categories' })).toHaveAttribute('href', '/categories')
  })

  it('says when a category has no templates yet', async () => {
    renderApp('/category/finance', { tables: marketplace({ templates: [] }) })
    expect(await screen.findByText('No templates found in this category yet.')).toBeInTheDocument()
    expect(screen.getByText('0 templates found')).toBeInTheDocument()
  })

  it('says when a category does not exist', async () => {
    renderApp('/category/unknown', { tables: marketplace() })
    expect(await screen.findByText('Category not found')).toBeInTheDocument()
    expect(screen.getByText("The category you're looking for doesn't exist.")).toBeInTheDocument()
  })

  it('reports a failed load', async () => {
    renderApp('/category/business', { tables: marketplace(), failing: { templates: { message: 'down' } } })
    expect(await screen.findByText('Failed to load category and templates')).toBeInTheDocument()
  })
})

describe('creators', () => {
  it('lists only creators with a published template, most downloads first', async () => {
    renderApp('/creators', { tables: marketplace() })
    const cards = await screen.findAllByRole('article')
    expect(cards.map((c) => within(c).getByRole('heading').textContent)).toEqual(['Maya Chen', 'Leo Martins'])
    expect(within(cards[0]).getByRole('link')).toHaveAttribute('href', '/profile/u-maya')
    expect(screen.queryByText('Kim Novak')).not.toBeInTheDocument()
  })

  it('sorts by name and searches', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/creators', { tables: marketplace() })
    await screen.findAllByRole('article')
    await user.selectOptions(screen.getByLabelText('Sort creators'), 'name')
    await waitFor(() => expect(here(router)).toBe('/creators?sort=name'))
    const names = screen.getAllByRole('article').map((c) => within(c).getByRole('heading').textContent)
    expect(names).toEqual(['Leo Martins', 'Maya Chen'])
    await user.type(screen.getByLabelText('Search creators'), 'zed')
    expect(await screen.findByText('No creators found matching "zed"')).toBeInTheDocument()
    expect(screen.getByText('Try adjusting your search terms')).toBeInTheDocument()
  })

  it('says when there are no creators yet', async () => {
    renderApp('/creators', { tables: { profiles: PROFILES, templates: [] } })
    expect(await screen.findByText('No creators available yet')).toBeInTheDocument()
    expect(screen.getByText('Be the first to share your templates!')).toBeInTheDocument()
  })

  it('reports a failed load', async () => {
    renderApp('/creators', { failing: { creator_listing: { message: 'down' } } })
    expect(await screen.findByText('Failed to load creators')).toBeInTheDocument()
  })
})

describe('shell', () => {
  it('shows the 404 page for unknown paths', async () => {
    renderApp('/no/such/page', { tables: marketplace() })
    expect(await screen.findByText('Oops! Page not found')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/')
  })

  it('sends a visitor clicking Upload to sign in with redirect to /upload', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/creators', { tables: marketplace() })
    const header = within(screen.getByRole('banner'))
    await user.click(header.getByRole('button', { name: 'Upload' }))
    await waitFor(() => expect(here(router)).toBe('/auth?mode=sign-in&redirect=%2Fupload'))
  })

  it('offers the same entries in the side drawer, with a profile card when signed in', async () => {
    const user = userEvent.setup()
    renderApp('/', { tables: marketplace(), signedInAs: MAYA })
    await screen.findByRole('button', { name: 'Account menu' })
    await user.click(screen.getByRole('button', { name: 'Open menu' }))
    const drawer = await screen.findByRole('dialog', { name: 'Menu' })
    for (const name of ['Home', 'Most Popular', 'Free Templates', 'Premium Templates', 'Browse All', 'Productivity', 'Health & Fitness', 'Personal', 'Education', 'View All', 'Creators', 'Upload', 'Profile', 'Dashboard', 'Settings']) {
      expect(within(drawer).getByRole('link', { name })).toBeInTheDocument()
    }
    expect(within(drawer).getByRole('button', { name: 'Logout' })).toBeInTheDocument()
    expect(within(drawer).getByText('@mayachen')).toBeInTheDocument()
    expect(within(drawer).getByRole('link', { name: 'Profile' })).toHaveAttribute('href', '/profile/mayachen')
    await user.click(within(drawer).getByRole('link', { name: 'Creators' }))
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Menu' })).not.toBeInTheDocument())
  })

  it('shows the avatar menu with name, handle and links', async () => {
    const user = userEvent.setup()
    renderApp('/', { tables: marketplace(), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Account menu' }))
    const menu = await screen.findByRole('menu')
    expect(within(menu).getByText('Maya Chen')).toBeInTheDocument()
    await waitFor(() => expect(within(menu).getByText('@mayachen')).toBeInTheDocument())
    for (const name of ['Profile', 'Dashboard', 'Settings', 'Logout']) expect(within(menu).getByRole('menuitem', { name })).toBeInTheDocument()
  })

  it('shows Sign In and Sign Up to visitors and the footer links', async () => {
    renderApp('/categories', { tables: marketplace() })
    const header = within(screen.getByRole('banner'))
    expect(await header.findByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/auth?mode=sign-in')
    expect(header.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/auth?mode=sign-up')
    const footer = within(screen.getByRole('contentinfo'))
    expect(footer.getByRole('link', { name: 'Upload Template' })).toHaveAttribute('href', '/upload')
    expect(footer.getByText(/© 2024/)).toBeInTheDocument()
    expect(footer.getByRole('link', { name: 'Privacy Policy' })).toBeInTheDocument()
  })
})
