// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Answers with what it was sent: method, path, query, headers and body.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return preflight()
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
