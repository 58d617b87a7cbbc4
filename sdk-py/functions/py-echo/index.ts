// The Python suite's own function (PLINTH_FUNCTIONS_DIR points at sdk-py/functions):
// answers with what the client sent, so the tests see the request as it arrived.
Deno.serve(async (req: Request) => {
  const url = new URL(req.url)
  const text = await req.text()
  const contentType = req.headers.get('content-type')
  let body: unknown = text === '' ? null : text
  if (text !== '' && contentType?.startsWith('application/json')) body = JSON.parse(text)
  return Response.json({
    method: req.method,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    contentType,
    body,
    authorization: req.headers.get('authorization'),
    apikey: req.headers.get('apikey'),
    custom: req.headers.get('x-custom'),
  })
})
