// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Refuses every request with 422 and a JSON body of its own.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return preflight()
  const sent = await req.json().catch(() => null)
  return Response.json(
    { error: 'name is required', code: 'missing_name', sent },
    { status: 422, headers: { ...corsHeaders, 'x-fail-reason': 'validation' } },
  )
})
