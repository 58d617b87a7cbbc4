// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// Server-sent events: `count` events (?count=, default 3), 250 ms apart.

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve((req) => {
  if (req.method === 'OPTIONS') return preflight()
  const count = Number(new URL(req.url).searchParams.get('count') ?? '3')
  const encoder = new TextEncoder()
  const body = new ReadableStream({
    async start(controller) {
      for (let n = 1; n <= count; n++) {
        controller.enqueue(encoder.encode(`event: tick\ndata: ${JSON.stringify({ n })}\n\n`))
        if (n < count) await new Promise((resolve) => setTimeout(resolve, 250))
      }
      controller.close()
    },
  })
  return new Response(body, {
    headers: { ...corsHeaders, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
  })
})
