import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { ApiError, apiGet } from './api'

/**
 * supabase-js calls through the proxy answer 401 when the console session
 * is gone; then GET /session (whose 401 goes to the sign-in page) decides.
 */
function checkSession(error: unknown): void {
  if (error instanceof ApiError) return // the api client has handled its own 401
  if ((error as { status?: number } | null)?.status === 401) {
    void apiGet('/session').catch(() => {})
  }
}

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: checkSession }),
    mutationCache: new MutationCache({ onError: checkSession }),
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        refetchOnWindowFocus: false,
        retry: (count, error) => count < 1 && ((error as { status?: number }).status ?? 500) >= 500,
      },
      mutations: { retry: 0 },
    },
  })
}
