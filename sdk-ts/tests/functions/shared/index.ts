// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// The platform's recommended layout: code shared by functions lives in
// ../_shared/ (a folder whose name starts with `_` is not a function).
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve((req) => {
  if (req.method === 'OPTIONS') return preflight()
  return Response.json({ shared: true }, { headers: corsHeaders })
})
