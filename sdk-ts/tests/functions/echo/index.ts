// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Answers with what it was sent: method, path, query, headers and body.

// CORS is the function's own job, as on the hosted platform (its CORS guide).
const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
}

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return new Response('ok', { headers: corsHeaders })
  const url = new URL(req.url)
  const contentType = req.headers.get('content-type')
  const text = await req.text()
  let body: unknown = text === '' ? null : text
  if (text !== '' && contentType?.startsWith('application/json')) body = JSON.parse(text)
  return Response.json(
    {
      method: req.method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      contentType,
      body,
      authorization: req.headers.get('authorization'),
      apikey: req.headers.get('apikey'),
      custom: req.headers.get('x-custom'),
    },
    { headers: corsHeaders },
  )
})
