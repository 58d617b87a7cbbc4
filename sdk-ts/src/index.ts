// @plinth/sdk: the typed way to reach a Plinth backend, on the official
// client library. The app uses nothing else to talk to the server.
import { createClient as createSupabaseClient, type SupabaseClient, type SupabaseClientOptions } from '@supabase/supabase-js'
import type { Database } from './database'

export type { Database } from './database'
export type PlinthClient = SupabaseClient<Database>

/** The official client, typed with the marketplace's `Database`. */
export function createClient(
  url: string,
  anonKey: string,
  options?: SupabaseClientOptions<'public'>,
): PlinthClient {
  return createSupabaseClient<Database>(url, anonKey, options)
}

/** What `GET /_/app-config.json` of a Plinth server answers. */
export interface AppConfig {
  anonKey: string
}

/**
 * The client for an app served by Plinth itself: the API is the page's own
 * origin, and the anon key is read from the server.
 */
export async function createClientForOrigin(
  origin: string,
  options?: SupabaseClientOptions<'public'>,
  fetchImpl: typeof fetch = fetch,
): Promise<PlinthClient> {
  const response = await fetchImpl(`${origin}/_/app-config.json`)
  if (!response.ok) throw new Error(`cannot read the app configuration (${response.status})`)
  const config = (await response.json()) as AppConfig
  return createClient(origin, config.anonKey, options)
}
