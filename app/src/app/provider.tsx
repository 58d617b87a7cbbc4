import { useEffect, useState, type ReactNode } from 'react'
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { Toaster } from 'sonner'
import { makeQueryClient } from '@/lib/query-client'
import { PHONE_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { startSessionMirror } from '@/lib/session'

/** The sticky header's height (`h-16` and its 1 px border). */
const HEADER_HEIGHT_PX = 65

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? makeQueryClient())
  useEffect(() => startSessionMirror(), [])
  // On a phone toasts come from the top: the bottom holds the template
  // page's sticky action bar (and the on-screen keyboard). They start below
  // the sticky header, so that its menu button stays in reach while one shows.
  const phone = useMediaQuery(PHONE_QUERY)
  const belowHeader = phone ? { top: HEADER_HEIGHT_PX + 8 } : undefined
  return (
    <QueryClientProvider client={client}>
      {children}
      <Toaster
        position={phone ? 'top-center' : 'bottom-right'}
        offset={belowHeader}
        mobileOffset={belowHeader}
        richColors
        closeButton
        duration={4500}
        visibleToasts={3}
      />
    </QueryClientProvider>
  )
}
