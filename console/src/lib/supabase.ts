// The platform's own auth, REST and storage APIs as service role, through the
// console's proxy (API.md: the server adds the service key and drops whatever
// apikey/Authorization the browser sends).
import { createClient, type SupabaseClient } from '@supabase/supabase-js'

let client: SupabaseClient | null = null

export function admin(): SupabaseClient {
  client ??= createClient(`${location.origin}/_/console/api`, 'console', {
    global: { headers: { 'x-plinth-console': '1' } },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false, flowType: 'implicit' },
  })
  return client
}

/** An error from supabase-js with the HTTP status it came with, so a lost session (401) can be told. */
export class ClientError extends Error {
  readonly status: number | undefined
  readonly code: string | undefined
  readonly details: string | undefined
  readonly hint: string | undefined

  constructor(message: string, extra: { status?: number; code?: string; details?: string; hint?: string } = {}) {
    super(message)
    this.name = 'ClientError'
    this.status = extra.status
    this.code = extra.code
    this.details = extra.details ?? undefined
    this.hint = extra.hint ?? undefined
  }
}

/** The data of a supabase-js answer that succeeded. */
export type Ok<A> = A extends { error: null; data: infer D } ? D : never

/** The data of a supabase-js answer, or a thrown ClientError. */
export function unwrap<A extends { data: unknown; error: unknown }>(answer: A): Ok<A> {
  const { data, error } = answer as { data: unknown; error: unknown; status?: number }
  if (error) {
    const e = error as { message?: string; status?: number; statusCode?: string | number; code?: string; details?: string; hint?: string }
    const status = (answer as { status?: number }).status ?? e.status ?? (e.statusCode !== undefined ? Number(e.statusCode) : undefined)
    throw new ClientError(e.message || 'The request failed.', {
      status: Number.isFinite(status) ? status : undefined,
      code: e.code,
      details: e.details,
      hint: e.hint,
    })
  }
  return data as Ok<A>
}
