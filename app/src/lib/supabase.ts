// The one door to the backend: the @plinth/sdk client for this origin.
// Tests replace this module (and only this module) with an in-memory fake.
import { createClientForOrigin, type PlinthClient } from '@plinth/sdk'
import { env } from '@/config/env'

let client: PlinthClient | null = null

/** Reads the anon key from the server and makes the client; once, at start-up. */
export async function initSupabase(): Promise<PlinthClient> {
  if (client) return client
  client = await createClientForOrigin(env.apiOrigin, {
    auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
  })
  return client
}

/** The client made by `initSupabase`. */
export function getSupabase(): PlinthClient {
  if (!client) throw new Error('the backend client is not initialised yet')
  return client
}
