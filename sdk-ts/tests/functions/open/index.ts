// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// verify_jwt = false (config.toml): anyone may call it, whatever their token.

// CORS is the function's own job, as on the hosted platform (its CORS guide).
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
}

Deno.serve((req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders })
  return Response.json({ open: true, authorization: req.headers.get('authorization') }, { headers: corsHeaders })
})
