// What the scale-out suite is given by scripts/scale-out: two plinth nodes on
// one database and one S3 store, nginx over both, and the keys; plus clients
// made as an app makes them, pointed at either node or at nginx.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run this suite through scripts/scale-out`)
  return value
}

export const nodeA = required('NODE_A_URL')
export const nodeB = required('NODE_B_URL')
export const nginx = required('NGINX_URL')
export const nginxReplicas = required('NGINX_REPLICAS_URL')
export const anonKey = required('ANON_KEY')
export const serviceRoleKey = required('SERVICE_ROLE_KEY')
export const siteUrl = required('SITE_URL')

const clients: SupabaseClient[] = []

/** Closes every realtime channel the suite's clients opened. */
export async function closeClients(): Promise<void> {
  for (const client of clients.splice(0)) await client.removeAllChannels()
}

interface ClientOptions {
  /** Replaces the client's fetch (to see the responses' headers). */
  fetch?: typeof fetch
}

/** A browser-like client of one base URL: anon key, session kept in memory. */
export function userClient(url: string, options: ClientOptions = {}): SupabaseClient {
  const items = new Map<string, string>()
  const client = createClient(url, anonKey, {
    auth: {
      storage: {
        getItem: (key: string) => items.get(key) ?? null,
        setItem: (key: string, value: string) => void items.set(key, value),
        removeItem: (key: string) => void items.delete(key),
      },
      persistSession: true,
      autoRefreshToken: false,
      detectSessionInUrl: false,
    },
    // Node 20 has no WebSocket of its own.
    realtime: { transport: ws as unknown as typeof WebSocket },
    global: options.fetch ? { fetch: options.fetch } : undefined,
  })
  clients.push(client)
  return client
}

/** A server-side client with the service_role key. */
export function serviceClient(url: string, options: ClientOptions = {}): SupabaseClient {
  const client = createClient(url, serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as unknown as typeof WebSocket },
    global: options.fetch ? { fetch: options.fetch } : undefined,
  })
  clients.push(client)
  return client
}

/** A unique e-mail address for one test. */
export function uniqueEmail(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}@example.com`
}

export const PASSWORD = 'scale-out-password-1'

/** A confirmed user made through the admin API of `url`. */
export async function confirmedUser(url: string, tag: string): Promise<{ id: string; email: string }> {
  const email = uniqueEmail(tag)
  const { data, error } = await serviceClient(url).auth.admin.createUser({
    email,
    password: PASSWORD,
    email_confirm: true,
  })
  if (error) throw error
  return { id: data.user!.id, email }
}

/** Resolves once the channel is joined; rejects on an error or time-out. */
export function subscribed(channel: RealtimeChannel): Promise<void> {
  return new Promise((ok, fail) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') ok()
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' || status === 'CLOSED') {
        fail(error ?? new Error(status))
      }
    })
  })
}

/** Polls `check` until it returns a value, for up to `ms`. */
export function waitFor<T>(what: string, check: () => T | undefined, ms = 10_000): Promise<T> {
  return new Promise((ok, fail) => {
    const started = Date.now()
    const tick = () => {
      const value = check()
      if (value !== undefined) return ok(value)
      if (Date.now() - started > ms) return fail(new Error(`timed out waiting for ${what}`))
      setTimeout(tick, 25)
    }
    tick()
  })
}

/** `count` pseudo-random bytes (a fixed seed per call site's `seed`). */
export function bytes(count: number, seed: number): Uint8Array {
  const out = new Uint8Array(count)
  let x = seed >>> 0 || 1
  for (let i = 0; i < count; i++) {
    // xorshift32
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.from(a).equals(Buffer.from(b))
}

/**
 * Requests a node has counted in its /metrics (read with the service key),
 * summed over the lines of `plinth_http_requests_total` whose labels match.
 */
export async function requestCount(node: string, labels: { service?: string; method?: string }): Promise<number> {
  const response = await fetch(`${node}/metrics`, { headers: { Authorization: `Bearer ${serviceRoleKey}` } })
  if (response.status !== 200) throw new Error(`${node}/metrics answered ${response.status}`)
  const text = await response.text()
  let total = 0
  let seen = false
  for (const line of text.split('\n')) {
    // Labels may hold braces themselves (route="/rest/v1/{*path}").
    const match = line.match(/^plinth_http_requests_total\{(.*)\} (\d+(?:\.\d+)?)$/)
    if (!match) continue
    seen = true
    const found = Object.fromEntries([...match[1].matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]))
    if (labels.service !== undefined && found.service !== labels.service) continue
    if (labels.method !== undefined && found.method !== labels.method) continue
    total += Number(match[2])
  }
  if (!seen) throw new Error(`${node}/metrics has no plinth_http_requests_total:\n${text.slice(0, 500)}`)
  return total
}
