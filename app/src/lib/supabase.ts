// The one door to the backend: the @plinth/sdk client for this origin.
// Tests replace this module (and only this module) with an in-memory fake.
import { createClientForOrigin, type PlinthClient } from '@plinth/sdk'
import { env } from '@/config/env'
import { timedFetch } from './timed-fetch'

let client: PlinthClient | null = null

/** Reads the anon key from the server and makes the client; once, at start-up. */
export async function initSupabase(): Promise<PlinthClient> {
  if (client) return client
  // Every request (REST, auth, storage, functions, and the app-config read
  // here) is given up after REQUEST_TIMEOUT_MS: see lib/timed-fetch.ts.
  const fetch = timedFetch()
  const made = await createClientForOrigin(
    env.apiOrigin,
    {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
      global: { fetch },
    },
    fetch,
  )
  // postgrest-js re-sends a failed GET up to 3 times by itself (1, 2, 4 s
  // apart, and as long as any Retry-After says): with react-query's retries
  // on top, an unreachable server would show its retry state only after
  // 15 s or more. One policy decides instead: the query client's
  // (lib/query-client.ts). supabase-js has no option for it; `rest.retry` is
  // what postgrest-js's own constructor option sets.
  ;(made as unknown as { rest: { retry?: boolean } }).rest.retry = false
  client = made
  return client
}

/** The client made by `initSupabase`. */
export function getSupabase(): PlinthClient {
  if (!client) throw new Error('the backend client is not initialised yet')
  return client
}
