import type { ReactNode } from 'react'
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { Toaster } from 'sonner'
import { PHONE_QUERY, useMediaQuery } from '@/lib/use-media-query'

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient: QueryClient }) {
  const phone = useMediaQuery(PHONE_QUERY)
  return (
    <QueryClientProvider client={queryClient}>
      {children}
      <Toaster position={phone ? 'top-center' : 'bottom-right'} richColors closeButton duration={6000} visibleToasts={3} />
    </QueryClientProvider>
  )
}
