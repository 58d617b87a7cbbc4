// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// What the function can read of its environment: the variables the platform
// grants, and whether others (the server's own) are readable.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

function read(name: string): { value: string | null; error: string | null } {
  try {
    return { value: Deno.env.get(name) ?? null, error: null }
  } catch (e) {
    return { value: null, error: e instanceof Error ? e.name : String(e) }
  }
}

const GRANTED = ['SUPABASE_URL', 'SUPABASE_PUBLIC_URL', 'SUPABASE_ANON_KEY', 'SUPABASE_SERVICE_ROLE_KEY', 'SUPABASE_DB_URL']
const NOT_GRANTED = ['PATH', 'HOME', 'JWT_SECRET', 'GITHUB_SECRET', 'DATABASE_URL']

Deno.serve((req) => {
  if (req.method === 'OPTIONS') return preflight()
  let all: string[] | null = null
  try {
    all = Object.keys(Deno.env.toObject()).sort()
  } catch {
    all = null
  }
  return Response.json(
    {
      granted: Object.fromEntries(GRANTED.map((name) => [name, read(name).value])),
      notGranted: Object.fromEntries(NOT_GRANTED.map((name) => [name, read(name)])),
      all,
    },
    { headers: corsHeaders },
  )
})
