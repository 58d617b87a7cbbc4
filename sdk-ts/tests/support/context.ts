// What every suite needs: the running plinth's URL and keys, clients made
// the way an app makes them, and a direct database connection for checks.
import { inject } from 'vitest'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import pg from 'pg'

export const plinthUrl = inject('plinthUrl')
export const anonKey = inject('anonKey')
export const serviceRoleKey = inject('serviceRoleKey')
export const databaseUrl = inject('databaseUrl')
export const jwtSecret = inject('jwtSecret')

/** A client as a browser app makes one: anon key, no persisted session. */
export function anonClient(): SupabaseClient {
  return createClient(plinthUrl, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  })
}

/** A server-side client with the service_role key. */
export function serviceClient(): SupabaseClient {
  return createClient(plinthUrl, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  })
}

/** Runs SQL as the database owner (fixtures, and checks of what was stored). */
export async function sql<T extends pg.QueryResultRow = pg.QueryResultRow>(
  text: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    return (await client.query<T>(text, values)).rows
  } finally {
    await client.end()
  }
}
