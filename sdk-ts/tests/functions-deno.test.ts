// The users' own edge functions: TypeScript in tests/functions/<name>/index.ts
// (Deno.serve), run by plinth's function host in Deno workers at
// /functions/v1/<name>, invoked with the unmodified client's
// supabase.functions.invoke (fetch only for what it cannot send: a
// preflight, a request without Authorization).
import { createHmac } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { createClient, FunctionsHttpError, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import {
  anonClient,
  anonKey,
  browserClient,
  jwtSecret,
  plinthUrl,
  serviceClient,
  serviceRoleKey,
  sql,
  uniqueEmail,
} from './support/context'

/** The error of an invoke as the function (or the host) answered it. */
async function httpError(error: unknown): Promise<{ status: number; headers: Headers; body: unknown }> {
  expect(error).toBeInstanceOf(FunctionsHttpError)
  const response = (error as FunctionsHttpError).context as Response
  return { status: response.status, headers: response.headers, body: await response.json() }
}

/** A client that sends `authorization` instead of the anon key's bearer. */
function clientWithToken(authorization: string): SupabaseClient {
  return createClient(plinthUrl, anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { headers: { Authorization: authorization } },
    // Node 20 has no WebSocket of its own.
    realtime: { transport: ws as unknown as typeof WebSocket },
  })
}

/** An HS256 JWT of `claims` signed with `secret`. */
function hs256(claims: Record<string, unknown>, secret: string): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const unsigned = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${unsigned}.${createHmac('sha256', secret).update(unsigned).digest('base64url')}`
}

const now = () => Math.floor(Date.now() / 1000)

describe('user functions: requests and responses', () => {
  it('echoes a JSON body with the method, path, query and headers it was sent', async () => {
    const body = { hello: 'world', n: 42, nested: { list: [1, 'two', null], ok: true }, unicode: 'héllo ✓' }
    const { data, error, response } = await anonClient().functions.invoke('echo', {
      body,
      headers: { 'x-custom': 'from-the-test' },
    })
    expect(error).toBeNull()
    expect(response?.status).toBe(200)
    expect(data).toEqual({
      method: 'POST',
      path: '/echo',
      query: {},
      contentType: 'application/json',
      body,
      authorization: `Bearer ${anonKey}`,
      apikey: anonKey,
      custom: 'from-the-test',
    })

    const patched = await anonClient().functions.invoke('echo', { method: 'PATCH', body: { patch: 1 } })
    expect(patched.error).toBeNull()
    expect(patched.data).toMatchObject({ method: 'PATCH', body: { patch: 1 } })
  })

  it('GET with a sub-path and a query string in the name', async () => {
    const { data, error } = await anonClient().functions.invoke('echo/sub/deeper?x=1&y=two%20words', { method: 'GET' })
    expect(error).toBeNull()
    expect(data).toMatchObject({
      method: 'GET',
      path: '/echo/sub/deeper',
      query: { x: '1', y: 'two words' },
      body: null,
    })

    const deleted = await anonClient().functions.invoke('echo?id=7', { method: 'DELETE' })
    expect(deleted.error).toBeNull()
    expect(deleted.data).toMatchObject({ method: 'DELETE', path: '/echo', query: { id: '7' } })
  })

  it('a text body round-trips as text/plain', async () => {
    const text = 'plain text, ünïcödé ✓\nsecond line\r\n\ttabbed'
    const { data, error, response } = await anonClient().functions.invoke('mirror', { body: text })
    expect(error).toBeNull()
    expect(response?.headers.get('content-type')).toBe('text/plain')
    expect(typeof data).toBe('string')
    expect(data).toBe(text)
  })

  it('a binary body round-trips byte for byte as application/octet-stream', async () => {
    // Every byte value, 300 KB: larger than one read buffer, not valid UTF-8.
    const bytes = new Uint8Array(300_000)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7 + (i >> 8)) % 256
    const { data, error, response } = await anonClient().functions.invoke('mirror', { body: bytes.buffer })
    expect(error).toBeNull()
    expect(response?.headers.get('content-type')).toBe('application/octet-stream')
    expect(response?.headers.get('x-received-bytes')).toBe(String(bytes.length))
    expect(data).toBeInstanceOf(Blob)
    const back = new Uint8Array(await (data as Blob).arrayBuffer())
    expect(back.length).toBe(bytes.length)
    expect(Buffer.compare(Buffer.from(back), Buffer.from(bytes))).toBe(0)
  })

  it('a text/event-stream response arrives as a stream, event by event', async () => {
    const { data, error, response } = await anonClient().functions.invoke('stream?count=4', { method: 'GET' })
    expect(error).toBeNull()
    expect(response?.headers.get('content-type')).toBe('text/event-stream')
    // supabase-js hands event streams over unread: `data` is the Response.
    expect(data).toBeInstanceOf(Response)
    const reader = (data as Response).body!.getReader()
    const decoder = new TextDecoder()
    const events: { n: number; at: number }[] = []
    let buffered = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffered += decoder.decode(value, { stream: true })
      let end: number
      while ((end = buffered.indexOf('\n\n')) >= 0) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const line = block.split('\n').find((l) => l.startsWith('data: '))
        expect(block).toContain('event: tick')
        events.push({ n: JSON.parse(line!.slice(6)).n, at: Date.now() })
      }
    }
    expect(events.map((e) => e.n)).toEqual([1, 2, 3, 4])
    // The function waits 250 ms between events: a host that buffered the
    // whole response would deliver them all at once.
    expect(events[3].at - events[0].at).toBeGreaterThanOrEqual(500)
  })

  it("a non-2xx answer surfaces as FunctionsHttpError carrying the function's own body", async () => {
    const { data, error } = await anonClient().functions.invoke('fail', { body: { name: '' } })
    expect(data).toBeNull()
    const failed = await httpError(error)
    expect(failed.status).toBe(422)
    expect(failed.headers.get('x-fail-reason')).toBe('validation')
    expect(failed.body).toEqual({ error: 'name is required', code: 'missing_name', sent: { name: '' } })
  })

  it('concurrent invocations each get their own answer', async () => {
    const supabase = anonClient()
    const results = await Promise.all(
      Array.from({ length: 16 }, (_, i) => supabase.functions.invoke(`echo?i=${i}`, { body: { i } })),
    )
    results.forEach(({ data, error }, i) => {
      expect(error).toBeNull()
      expect(data).toMatchObject({ query: { i: String(i) }, body: { i } })
    })
  })

  it('an unknown name is 404 NOT_FOUND with the platform body', async () => {
    const { data, error } = await anonClient().functions.invoke('no-such-function-here', { body: {} })
    expect(data).toBeNull()
    const missing = await httpError(error)
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'Requested function was not found' })
    expect(missing.headers.get('sb-error-code')).toBe('NOT_FOUND')
  })
})

describe('user functions: CORS is the function’s own', () => {
  it('answers a browser preflight without a token, and its responses carry its CORS headers', async () => {
    const preflight = await fetch(`${plinthUrl}/functions/v1/echo`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, x-client-info, apikey, content-type',
      },
    })
    expect(preflight.status).toBe(200)
    expect(await preflight.text()).toBe('ok')
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, x-client-info, apikey, content-type')

    const { error, response } = await anonClient().functions.invoke('echo', { body: {} })
    expect(error).toBeNull()
    expect(response?.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('the functions share ../_shared/cors.ts, as the platform guide lays them out; _shared is no function', async () => {
    // Every function here imports its CORS headers from ../_shared/cors.ts.
    const { error, response } = await anonClient().functions.invoke('fail', { body: {} })
    expect(response?.headers.get('access-control-allow-origin')).toBe('*')
    expect((await httpError(error)).status).toBe(422)
    const shared = await anonClient().functions.invoke('_shared', { body: {} })
    expect(await httpError(shared.error)).toMatchObject({
      status: 404,
      body: { code: 'NOT_FOUND', message: 'Requested function was not found' },
    })
  })
})

describe('user functions: verify_jwt', () => {
  it('the anon key passes; a token signed with the project secret passes', async () => {
    const anon = await anonClient().functions.invoke('echo', { body: { who: 'anon' } })
    expect(anon.error).toBeNull()
    expect(anon.data.body).toEqual({ who: 'anon' })

    const signed = hs256({ role: 'anon', iss: 'test', iat: now(), exp: now() + 600 }, jwtSecret)
    const own = await clientWithToken(`Bearer ${signed}`).functions.invoke('echo', { body: { who: 'signed' } })
    expect(own.error).toBeNull()
    expect(own.data.authorization).toBe(`Bearer ${signed}`)
  })

  it('a forged, an expired or a malformed token gets 401 Invalid JWT', async () => {
    const forged = hs256({ role: 'service_role', iat: now(), exp: now() + 600 }, 'not-the-secret-not-the-secret-not-it')
    const expired = hs256({ role: 'anon', iat: now() - 7200, exp: now() - 3600 }, jwtSecret)
    for (const token of [forged, expired, 'not.a.jwt']) {
      const { data, error } = await clientWithToken(`Bearer ${token}`).functions.invoke('echo', { body: { x: 1 } })
      expect(data).toBeNull()
      const refused = await httpError(error)
      expect(refused.status).toBe(401)
      expect(refused.body).toEqual({ code: 401, message: 'Invalid JWT' })
    }
  })

  it('no Authorization header at all gets 401 Missing authorization header', async () => {
    // supabase-js always sends one; this is what any other HTTP client may do.
    const response = await fetch(`${plinthUrl}/functions/v1/echo`, {
      method: 'POST',
      headers: { apikey: anonKey, 'content-type': 'application/json' },
      body: '{}',
    })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ code: 401, message: 'Missing authorization header' })
  })

  it('verify_jwt = false lets a bogus bearer through to the function', async () => {
    const { data, error } = await clientWithToken('Bearer bogus-token').functions.invoke('open', { body: {} })
    expect(error).toBeNull()
    expect(data).toEqual({ open: true, authorization: 'Bearer bogus-token' })

    // The same bearer on a function that checks it is refused.
    const checked = await clientWithToken('Bearer bogus-token').functions.invoke('echo', { body: {} })
    expect((await httpError(checked.error)).status).toBe(401)
  })
})

describe('user functions: environment', () => {
  it('sees the platform variables and the keys, and nothing else of the server', async () => {
    const { data, error } = await anonClient().functions.invoke('env', { method: 'GET' })
    expect(error).toBeNull()
    const { granted, notGranted, all } = data as {
      granted: Record<string, string | null>
      notGranted: Record<string, { value: string | null; error: string | null }>
      all: string[] | null
    }
    expect(granted.SUPABASE_URL).toMatch(/^https?:\/\/[^/]+/)
    expect(granted.SUPABASE_PUBLIC_URL).toMatch(/^https?:\/\/[^/]+/)
    expect(granted.SUPABASE_ANON_KEY).toBe(anonKey)
    expect(granted.SUPABASE_SERVICE_ROLE_KEY).toBe(serviceRoleKey)
    expect(granted.SUPABASE_DB_URL).toMatch(/^postgres(ql)?:\/\//)
    // The server's own environment (PATH, its JWT secret, the GitHub
    // client secret of the suite) is not readable: absent or refused.
    for (const name of ['PATH', 'HOME', 'JWT_SECRET', 'GITHUB_SECRET']) {
      expect(notGranted[name].value, name).toBeNull()
    }
    expect(process.env.PATH).toBeTruthy()
    if (all) {
      expect(all).not.toContain('JWT_SECRET')
      expect(all).not.toContain('PATH')
    }
  })
})

describe('user functions: supabase-js from npm inside a function, under row-level security', () => {
  const PASSWORD = 'a-good-password'
  const users: { email: string; id: string; client: SupabaseClient }[] = []

  beforeAll(async () => {
    await sql(`
      create table if not exists public.fn_deno_notes (
        id serial primary key, user_id uuid not null, body text not null);
      alter table public.fn_deno_notes enable row level security;
      drop policy if exists "own notes" on public.fn_deno_notes;
      create policy "own notes" on public.fn_deno_notes for select to authenticated
        using (user_id = auth.uid());
      grant select on public.fn_deno_notes to anon, authenticated;
      notify pgrst, 'reload schema';
    `)
    for (const tag of ['fn-alice', 'fn-bob']) {
      const email = uniqueEmail(tag)
      const created = await serviceClient().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
      expect(created.error).toBeNull()
      const client = browserClient()
      const signIn = await client.auth.signInWithPassword({ email, password: PASSWORD })
      expect(signIn.error).toBeNull()
      users.push({ email, id: created.data.user!.id, client })
    }
    await sql(
      `insert into public.fn_deno_notes (user_id, body) values ($1, 'alice 1'), ($1, 'alice 2'), ($2, 'bob 1')`,
      [users[0].id, users[1].id],
    )
    // The schema cache reloads off the request path; wait until it has the table.
    for (let i = 0; i < 100; i++) {
      const { error } = await serviceClient().from('fn_deno_notes').select('id').limit(1)
      if (!error) return
      await new Promise((r) => setTimeout(r, 100))
    }
    throw new Error('the schema cache never saw fn_deno_notes')
  })

  it(
    'a signed-in user sees only their own rows; anon none; the service role all',
    async () => {
      const [alice, bob] = users
      // The first call boots the worker, which fetches supabase-js from npm.
      const asAlice = await alice.client.functions.invoke('rls', { method: 'GET' })
      expect(asAlice.error).toBeNull()
      expect(asAlice.data).toEqual({
        user: alice.id,
        rows: [
          { body: 'alice 1', user_id: alice.id },
          { body: 'alice 2', user_id: alice.id },
        ],
        error: null,
      })

      const asBob = await bob.client.functions.invoke('rls', { method: 'GET' })
      expect(asBob.error).toBeNull()
      expect(asBob.data).toEqual({ user: bob.id, rows: [{ body: 'bob 1', user_id: bob.id }], error: null })

      const asAnon = await anonClient().functions.invoke('rls', { method: 'GET' })
      expect(asAnon.error).toBeNull()
      expect(asAnon.data).toEqual({ user: null, rows: [], error: null })

      const asService = await serviceClient().functions.invoke('rls', { method: 'GET' })
      expect(asService.error).toBeNull()
      expect(asService.data.rows.map((r: { body: string }) => r.body)).toEqual(['alice 1', 'alice 2', 'bob 1'])
    },
    180_000,
  )
})
