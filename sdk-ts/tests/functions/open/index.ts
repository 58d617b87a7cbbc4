// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// verify_jwt = false (config.toml): anyone may call it, whatever their token.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve((req) => {
  if (req.method === 'OPTIONS') return preflight()
  return Response.json({ open: true, authorization: req.headers.get('authorization') }, { headers: corsHeaders })
})
