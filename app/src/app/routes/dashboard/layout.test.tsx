import { afterEach, describe, expect, it } from 'vitest'
import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { here, renderApp } from '@/testing/render'
import { marketplace, MAYA } from '@/testing/fixtures'
import { readSidebarCookie } from './layout'

function clearCookie() {
  document.cookie = 'sidebar_state=; path=/; max-age=0'
}

const sidebar = () => screen.findByRole('complementary', { name: 'Dashboard' })

describe('dashboard sidebar', () => {
  afterEach(clearCookie)

  it('lists the dashboard, lists, public and settings entries', async () => {
    renderApp('/dashboard/wishlist', { tables: marketplace({ wishlist: [] }), signedInAs: MAYA })
    const aside = await sidebar()
    const links = within(aside)
      .getAllByRole('link')
      .map((a) => [a.textContent, a.getAttribute('href')])
    expect(links).toEqual([
      ['Dashboard', '/dashboard'],
      ['Profile', '/dashboard/profile'],
      ['Templates', '/dashboard/templates'],
      ['Audience', '/dashboard/audience'],
      ['Sales', '/dashboard/sales'],
      ['Wishlist', '/dashboard/wishlist'],
      ['Library', '/dashboard/library'],
      ['Discover', '/discover'],
      ['Creators', '/creators'],
      ['Settings', '/dashboard/settings'],
    ])
    expect(within(aside).getByRole('link', { name: 'Wishlist' })).toHaveAttribute('aria-current', 'page')
  })

  it('collapses to icons with Ctrl+B or Cmd+B and keeps the choice in a cookie', async () => {
    const user = userEvent.setup()
    const { unmount } = renderApp('/dashboard/wishlist', { tables: marketplace({ wishlist: [] }), signedInAs: MAYA })
    const aside = await sidebar()
    expect(aside).toHaveAttribute('data-state', 'expanded')
    await user.keyboard('{Control>}b{/Control}')
    expect(aside).toHaveAttribute('data-state', 'collapsed')
    expect(document.cookie).toContain('sidebar_state=false')
    // Collapsed, the entries keep their names for assistive technology.
    expect(within(aside).getByRole('link', { name: 'Library' })).toBeInTheDocument()
    expect(within(aside).queryByText('Lists')).not.toBeInTheDocument()
    unmount()

    renderApp('/dashboard/wishlist', { tables: marketplace({ wishlist: [] }), signedInAs: MAYA })
    const again = await sidebar()
    expect(again).toHaveAttribute('data-state', 'collapsed')
    await user.keyboard('{Meta>}b{/Meta}')
    expect(again).toHaveAttribute('data-state', 'expanded')
    expect(document.cookie).toContain('sidebar_state=true')
    await user.click(within(again).getByRole('button', { name: 'Collapse sidebar' }))
    expect(again).toHaveAttribute('data-state', 'collapsed')
  })

  it('reads its cookie among others', () => {
    expect(readSidebarCookie('')).toBe(true)
    expect(readSidebarCookie('a=1; sidebar_state=false; b=2')).toBe(false)
    expect(readSidebarCookie('sidebar_state=true')).toBe(true)
    expect(readSidebarCookie('other_sidebar_state=false')).toBe(true)
  })

  it('opens as a drawer on small screens and closes after a choice', async () => {
    const user = userEvent.setup()
    const { router } = renderApp('/dashboard/wishlist', { tables: marketplace({ wishlist: [] }), signedInAs: MAYA })
    await user.click(await screen.findByRole('button', { name: 'Open dashboard menu' }))
    const drawer = await screen.findByRole('dialog', { name: 'Dashboard menu' })
    await user.click(within(drawer).getByRole('link', { name: 'Library' }))
    await waitFor(() => expect(here(router)).toBe('/dashboard/library'))
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Dashboard menu' })).not.toBeInTheDocument())
  })

  it('answers an unknown dashboard path with the 404 page', async () => {
    renderApp('/dashboard/nothing-here', { tables: marketplace(), signedInAs: MAYA })
    expect(await screen.findByText('Oops! Page not found')).toBeInTheDocument()
  })
})
