// What every suite needs: the running plinth's URL and keys, clients made
// the way an app makes them, and a direct database connection for checks.
import { inject } from 'vitest'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import pg from 'pg'
import ws from 'ws'

// Node 20 has no WebSocket of its own; the realtime client is given `ws`.
const realtime = { transport: ws as unknown as typeof WebSocket }

export const plinthUrl = inject('plinthUrl')
export const anonKey = inject('anonKey')
export const serviceRoleKey = inject('serviceRoleKey')
export const databaseUrl = inject('databaseUrl')
export const jwtSecret = inject('jwtSecret')
export const siteUrl = inject('siteUrl')

/** Storage as a browser's localStorage, in memory: sessions and PKCE verifiers live here. */
export function memoryStorage() {
  const items = new Map<string, string>()
  return {
    getItem: (key: string) => items.get(key) ?? null,
    setItem: (key: string, value: string) => void items.set(key, value),
    removeItem: (key: string) => void items.delete(key),
  }
}

/** A client as a browser keeps one: a session that persists (in memory here). */
export function browserClient(flowType: 'implicit' | 'pkce' = 'pkce'): SupabaseClient {
  return createClient(plinthUrl, anonKey, {
    auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false, flowType },
    realtime,
  })
}

/** A unique e-mail address for one test. */
export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

/** The links of the newest dev-mailbox message to `to` (read as the operator, with the service_role key). */
export async function mailboxLinks(to: string): Promise<string[]> {
  const response = await fetch(`${plinthUrl}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, {
    headers: { apikey: serviceRoleKey },
  })
  if (!response.ok) throw new Error(`mailbox answered ${response.status}`)
  const body = (await response.json()) as { messages: { links: string[] }[] }
  if (body.messages.length === 0) throw new Error(`no mail to ${to}`)
  return body.messages[0].links
}

/** A client as a browser app makes one: anon key, no persisted session. */
export function anonClient(): SupabaseClient {
  return createClient(plinthUrl, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime,
  })
}

/** A server-side client with the service_role key. */
export function serviceClient(): SupabaseClient {
  return createClient(plinthUrl, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime,
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
