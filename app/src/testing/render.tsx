// Renders the real app (routes, providers) at a path, on a fake backend.
import { render } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { QueryClient } from '@tanstack/react-query'
import { AppProvider } from '@/app/provider'
import { routes } from '@/app/routes'
import { useSessionStore } from '@/lib/session'
import { useNavMemory } from '@/lib/nav-memory'
import { FakeSupabase, type FakeOptions } from './fake-supabase'
import { setFake } from './supabase-module'

export function renderApp(path: string, options: FakeOptions | FakeSupabase = {}) {
  const fake = setFake(options instanceof FakeSupabase ? options : new FakeSupabase(options))
  useSessionStore.setState({ user: null, session: null, loading: true })
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false, staleTime: Infinity }, mutations: { retry: false } },
  })
  const router = createMemoryRouter(routes, { initialEntries: [path] })
  const view = render(
    <AppProvider queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>,
  )
  return { ...view, fake, router, queryClient }
}

/** The path + query the router is at. */
export function here(router: ReturnType<typeof createMemoryRouter>): string {
  return router.state.location.pathname + router.state.location.search
}

export function resetNavMemory() {
  useNavMemory.setState({ lastPath: null })
}
