// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Sends the request's bytes back with the request's content type.

// CORS is the function's own job, as on the hosted platform (its CORS guide).
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders })
  const bytes = new Uint8Array(await req.arrayBuffer())
  return new Response(bytes, {
    headers: {
      ...corsHeaders,
      'content-type': req.headers.get('content-type') ?? 'application/octet-stream',
      'x-received-bytes': String(bytes.length),
    },
  })
})
