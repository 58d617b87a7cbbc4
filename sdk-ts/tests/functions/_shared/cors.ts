// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// The headers of the platform's CORS guide, in the shared folder it
// recommends (a folder whose name starts with `_` is not a function);
// imported by every function here.
export const corsHeaders = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'authorization, x-client-info, apikey, content-type',
  'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
}

/** The preflight answer, for `if (req.method === 'OPTIONS')`. */
export function preflight(): Response {
  return new Response('ok', { headers: corsHeaders })
}
