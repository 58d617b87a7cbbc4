import { describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace } from '@/testing/fixtures'

// Issue 15, item 12: Discover and Categories are links (open in a new tab
// works), with their menus on a toggle button beside them.
describe('header navigation', () => {
  it('makes Discover and Categories links to their pages', async () => {
    renderApp('/', { tables: marketplace() })
    const main = await screen.findByRole('navigation', { name: 'Main' })
    expect(within(main).getByRole('link', { name: 'Discover' })).toHaveAttribute('href', '/discover')
    expect(within(main).getByRole('link', { name: 'Categories' })).toHaveAttribute('href', '/categories')
  })

  it('opens the Discover menu from its toggle with the keyboard; the entries are links', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/', { tables: marketplace() })
    const toggle = await screen.findByRole('button', { name: 'Discover menu' })
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    toggle.focus()
    await user.keyboard('{Enter}')
    await waitFor(() => expect(toggle).toHaveAttribute('aria-expanded', 'true'))
    const popular = await screen.findByRole('menuitem', { name: 'Most Popular' })
    expect(popular).toHaveAttribute('href', '/discover?sort=most-popular')
    expect(screen.getByRole('menuitem', { name: 'Free Templates' })).toHaveAttribute('href', '/discover?price=free')
    await user.keyboard('{Escape}')
    await waitFor(() => expect(toggle).toHaveAttribute('aria-expanded', 'false'))
    expect(here(router)).toBe('/')
  })

  it('opens the Categories menu and follows an entry', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/', { tables: marketplace() })
    await user.click(await screen.findByRole('button', { name: 'Categories menu' }))
    expect(await screen.findByRole('menuitem', { name: 'View All' })).toHaveAttribute('href', '/categories')
    await user.click(screen.getByRole('menuitem', { name: 'Productivity' }))
    await waitFor(() => expect(here(router)).toBe('/category/productivity'))
  })

  it('follows the Discover link itself to /discover', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/', { tables: marketplace() })
    await user.click(within(await screen.findByRole('navigation', { name: 'Main' })).getByRole('link', { name: 'Discover' }))
    await waitFor(() => expect(here(router)).toBe('/discover'))
  })
})
