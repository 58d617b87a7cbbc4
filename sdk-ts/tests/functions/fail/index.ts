// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Refuses every request with 422 and a JSON body of its own.

// CORS is the function's own job, as on the hosted platform (its CORS guide).
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders })
  const sent = await req.json().catch(() => null)
  return Response.json(
    { error: 'name is required', code: 'missing_name', sent },
    { status: 422, headers: { ...corsHeaders, 'x-fail-reason': 'validation' } },
  )
})
