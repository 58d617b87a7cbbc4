// @ts-nocheck -- Deno code, run by plinth's function host; not part of the Node typecheck.
// The platform's "auth context" example: a supabase-js client (from npm) on
// SUPABASE_URL and SUPABASE_ANON_KEY that carries the caller's Authorization
// header, so row-level security sees the caller.
import { createClient } from 'npm:@supabase/supabase-js@2'

// CORS is the function's own job, as on the hosted platform.
import { corsHeaders, preflight } from '../_shared/cors.ts'

Deno.serve(async (req) => {
  if (req.method === 'OPTIONS') return preflight()
  const authHeader = req.headers.get('Authorization')!
  const supabase = createClient(Deno.env.get('SUPABASE_URL')!, Deno.env.get('SUPABASE_ANON_KEY')!, {
    global: { headers: { Authorization: authHeader } },
  })
  const token = authHeader.replace('Bearer ', '')
  const { data: userData } = await supabase.auth.getUser(token)
  const { data, error } = await supabase.from('fn_deno_notes').select('body, user_id').order('body')
  return Response.json(
    { user: userData?.user?.id ?? null, rows: data, error: error?.message ?? null },
    { status: error ? 500 : 200, headers: corsHeaders },
  )
})
