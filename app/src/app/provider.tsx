import { useEffect, useState, type ReactNode } from 'react'
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { Toaster } from 'sonner'
import { makeQueryClient } from '@/lib/query-client'
import { PHONE_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { startSessionMirror } from '@/lib/session'

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? makeQueryClient())
  useEffect(() => startSessionMirror(), [])
  // On a phone toasts come from the top: the bottom holds the template
  // page's sticky action bar (and the on-screen keyboard).
  const phone = useMediaQuery(PHONE_QUERY)
  return (
    <QueryClientProvider client={client}>
      {children}
      <Toaster position={phone ? 'top-center' : 'bottom-right'} richColors closeButton duration={4500} visibleToasts={3} />
    </QueryClientProvider>
  )
}
