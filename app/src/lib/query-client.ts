import { QueryClient } from '@tanstack/react-query'
import { QUERY_RETRIES, QUERY_RETRY_BASE_MS } from '@/config/constants'
import { shouldRetryRead } from './errors'

/**
 * The retry policy of the app's reads and writes (issue 24), the one place
 * that decides it (postgrest-js's own re-sending is turned off in
 * lib/supabase.ts):
 * - A read that failed for a connection problem (no answer, 5xx, a gateway's
 *   error page) is tried again QUERY_RETRIES times, 1 s then 2 s later, so a
 *   blip is not shown to the user; an unreachable server shows the retry
 *   state after about 3 s.
 * - A refusal (4xx: not allowed, bad input) is never tried again: it would
 *   only be refused again.
 * - A timed-out read is not tried again either: the user has already waited
 *   REQUEST_TIMEOUT_MS; the retry state lets them choose.
 * - Writes are never retried by themselves (a write that timed out may have
 *   happened); a failed submit keeps the form as typed for the user to send
 *   again.
 * - `networkMode: 'always'`: react-query would otherwise pause requests
 *   while the browser says it is offline, leaving a screen with neither data
 *   nor error (and a form stuck on "Saving..."). Now they fail at once and
 *   show the retry state; when the browser is back online the failed reads
 *   are fetched again by themselves (refetchOnReconnect).
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: false,
        networkMode: 'always',
        retry: (failureCount, error) => shouldRetryRead(failureCount, error, QUERY_RETRIES),
        retryDelay: (attempt) => QUERY_RETRY_BASE_MS * 2 ** attempt,
      },
      mutations: { retry: 0, networkMode: 'always' },
    },
  })
}
