import { useState } from 'react'
import { createBrowserRouter, RouterProvider } from 'react-router'
import { AppProvider } from './provider'
import { routes } from './routes'
import { makeQueryClient } from '@/lib/query-client'
import { setUnauthorizedHandler } from '@/lib/api'

export const BASENAME = '/_/console'

export function App() {
  const [queryClient] = useState(makeQueryClient)
  const [router] = useState(() => {
    const router = createBrowserRouter(routes, { basename: BASENAME })
    // A lost session (expired, signed out elsewhere): back to the sign-in page.
    setUnauthorizedHandler(() => {
      const { search } = router.state.location
      // The router's location may carry the basename: the app's own paths do not.
      const full = router.state.location.pathname
      const pathname = full.startsWith(BASENAME) ? full.slice(BASENAME.length) || '/' : full
      if (pathname === '/sign-in') return
      queryClient.clear()
      void router.navigate(`/sign-in?redirect=${encodeURIComponent(pathname + search)}`, { replace: true })
    })
    return router
  })
  return (
    <AppProvider queryClient={queryClient}>
      <RouterProvider router={router} />
    </AppProvider>
  )
}
