import { useEffect, useState, type ReactNode } from 'react'
import { QueryClientProvider, type QueryClient } from '@tanstack/react-query'
import { Toaster } from 'sonner'
import { makeQueryClient } from '@/lib/query-client'
import { startSessionMirror } from '@/lib/session'

export function AppProvider({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? makeQueryClient())
  useEffect(() => startSessionMirror(), [])
  return (
    <QueryClientProvider client={client}>
      {children}
      <Toaster position="bottom-right" richColors closeButton duration={4500} visibleToasts={3} />
    </QueryClientProvider>
  )
}
