import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { QueryClient } from '@tanstack/react-query'
import { AppProvider } from './provider'
import { routes } from './routes'
import { mockFetch } from '@/testing/fetch'

function renderAt(path: string) {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  render(
    <AppProvider queryClient={client}>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return router
}

describe('the console layout', () => {
  it('sends a visitor without a session to sign-in, remembering the page', async () => {
    mockFetch({ status: 401, body: { error: 'not_signed_in', message: 'Sign in first.' } })
    const router = renderAt('/sql')
    expect(await screen.findByRole('heading', { name: 'Sign in to the Plinth console' })).toBeInTheDocument()
    expect(router.state.location.pathname + router.state.location.search).toBe('/sign-in?redirect=%2Fsql')
  })

  it('shows the sections, the operator and sign-out to an operator', async () => {
    mockFetch(
      { status: 200, body: { operator: { id: 'o1', email: 'ops@example.test' }, expires_at: '2030-01-01T00:00:00Z' } },
      { status: 200, body: { users: [], total: 0, page: 1, per_page: 50 } },
    )
    renderAt('/')
    expect(await screen.findByRole('heading', { level: 1, name: 'Users' })).toBeInTheDocument()
    const nav = screen.getByRole('navigation', { name: 'Console' })
    for (const name of ['Users', 'Tables', 'SQL editor', 'Policies', 'Storage', 'Realtime & functions', 'Logs & health', 'Settings'])
      expect(nav).toContainElement(screen.getAllByRole('link', { name })[0])
    expect(screen.getByRole('main')).toBeInTheDocument()
    expect(screen.getAllByRole('button', { name: 'Sign out' }).length).toBeGreaterThan(0)
    expect(screen.getByText('ops@example.test')).toBeInTheDocument()
    expect(await screen.findByText('No users match.')).toBeInTheDocument()
  })
})
