// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Sends the request's bytes back with the request's content type.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return preflight()
  const bytes = new Uint8Array(await req.arrayBuffer())
  return new Response(bytes, {
    headers: {
      ...corsHeaders,
      'content-type': req.headers.get('content-type') ?? 'application/octet-stream',
      'x-received-bytes': String(bytes.length),
    },
  })
})
