// Security of auth through the unmodified supabase-js (items 4, 9, 12 and 13
// of the security review, item 10 of the second): the dev mailbox is the
// operator's, recovery mail is rate-limited per address, answers do not tell
// whether an address has an account, storage URL tokens and tokens before
// their `nbf` open nothing, and tokens without `exp` work as on the platform
// unless PLINTH_JWT_REQUIRE_EXP refuses them.
import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { createClient } from '@supabase/supabase-js'
import ws from 'ws'
import { anonClient, anonKey, jwtSecret, plinthUrl, serviceClient, serviceRoleKey, sql, uniqueEmail } from '../support/context'
import { startOwnPlinth } from '../support/own-plinth'

const PASSWORD = 'an-owners-password'

/** A confirmed account whose password is bcrypt, as platform seed files write them. */
async function seededUser(email: string): Promise<string> {
  const rows = await sql<{ id: string }>(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
                             raw_app_meta_data, raw_user_meta_data, created_at, updated_at)
     values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
             crypt($2, gen_salt('bf', 4)), now(), '{"provider":"email","providers":["email"]}', '{}', now(), now())
     returning id`,
    [email, PASSWORD],
  )
  return rows[0].id
}

/** The keys of a JSON value and the kinds of its values, recursively. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape)
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([k, v]) => [k, shape(v)]),
    )
  }
  return value === null ? 'null' : typeof value
}

/** An HS256 JWT of `claims` signed with the project's secret (or `secret`). */
function sign(claims: Record<string, unknown>, secret = jwtSecret): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url')
  const body = `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}`
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`
}

const now = () => Math.floor(Date.now() / 1000)

/** A server-side client's options (Node 20 has no WebSocket: realtime gets `ws`). */
const serverSide = {
  auth: { persistSession: false, autoRefreshToken: false },
  realtime: { transport: ws as unknown as typeof WebSocket },
}

function mailbox(to: string, key?: string): Promise<Response> {
  const headers: Record<string, string> = key ? { apikey: key, authorization: `Bearer ${key}` } : {}
  return fetch(`${plinthUrl}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, { headers })
}

describe('item 4: the dev mailbox', () => {
  it('answers the service-role key only', async () => {
    const email = uniqueEmail('mailbox')
    await seededUser(email)
    const { error } = await anonClient().auth.resetPasswordForEmail(email)
    expect(error).toBeNull()

    const nobody = await mailbox(email)
    expect(nobody.status).toBe(401)
    expect((await nobody.json()).error_code).toBe('no_authorization')
    const anon = await mailbox(email, anonKey)
    expect(anon.status).toBe(403)
    expect((await anon.json()).error_code).toBe('not_admin')
    const client = anonClient()
    const signedIn = await client.auth.signInWithPassword({ email, password: PASSWORD })
    expect(signedIn.error).toBeNull()
    const user = await mailbox(email, signedIn.data.session!.access_token)
    expect(user.status).toBe(403)

    const operator = await mailbox(email, serviceRoleKey)
    expect(operator.status).toBe(200)
    const { messages } = (await operator.json()) as { messages: { subject: string }[] }
    expect(messages.map((m) => m.subject)).toEqual(['Reset your password'])
  })
})

describe('item 9: recovery e-mail', () => {
  it('goes once a minute per address, known or not', async () => {
    const known = uniqueEmail('again')
    await seededUser(known)
    const unknown = uniqueEmail('again-unknown')
    for (const email of [known, unknown]) {
      const first = await anonClient().auth.resetPasswordForEmail(email)
      expect(first.error).toBeNull()
      const second = await anonClient().auth.resetPasswordForEmail(email)
      expect(second.error?.status).toBe(429)
      expect(second.error?.code).toBe('over_email_send_rate_limit')
    }
  })
})

describe('item 12: answers do not tell whether an address has an account', () => {
  it('signUp of a taken address answers like a new sign-up', async () => {
    const taken = uniqueEmail('taken')
    const ownerId = await seededUser(taken)
    const options = { data: { display_name: 'Someone' } }
    const fresh = await anonClient().auth.signUp({ email: uniqueEmail('fresh'), password: 'a-new-password', options })
    const again = await anonClient().auth.signUp({ email: taken, password: 'a-new-password', options })
    expect(fresh.error).toBeNull()
    expect(again.error).toBeNull()
    expect(again.data.session).toBeNull()
    expect(again.data.user?.email).toBe(taken)
    expect(again.data.user?.id).not.toBe(ownerId)
    expect(again.data.user?.identities).toHaveLength(1)
    expect(shape(again.data)).toEqual(shape(fresh.data))
    // The owner gets an e-mail about it; nothing else changed.
    const mail = await (await mailbox(taken, serviceRoleKey)).json()
    expect(mail.messages).toHaveLength(1)
    const owner = await anonClient().auth.signInWithPassword({ email: taken, password: PASSWORD })
    expect(owner.error).toBeNull()
  })

  it('signInWithOtp without sign-up answers alike', async () => {
    const known = uniqueEmail('otp-known')
    await seededUser(known)
    const unknown = uniqueEmail('otp-unknown')
    const a = await anonClient().auth.signInWithOtp({ email: known, options: { shouldCreateUser: false } })
    const b = await anonClient().auth.signInWithOtp({ email: unknown, options: { shouldCreateUser: false } })
    expect(a.error).toBeNull()
    expect(b).toEqual(a)
    expect(await sql('select 1 from auth.users where email = $1', [unknown])).toHaveLength(0)
  })

  it('resetPasswordForEmail and signInWithPassword answer alike', async () => {
    const known = uniqueEmail('reset-known')
    await seededUser(known)
    const unknown = uniqueEmail('reset-unknown')
    const a = await anonClient().auth.resetPasswordForEmail(known)
    const b = await anonClient().auth.resetPasswordForEmail(unknown)
    expect(a.error).toBeNull()
    expect(b).toEqual(a)
    const wrong = await anonClient().auth.signInWithPassword({ email: known, password: 'not-it' })
    const missing = await anonClient().auth.signInWithPassword({ email: unknown, password: 'not-it' })
    expect(wrong.error?.code).toBe('invalid_credentials')
    expect([missing.error?.status, missing.error?.code, missing.error?.message]).toEqual([
      wrong.error?.status,
      wrong.error?.code,
      wrong.error?.message,
    ])
  })
})

describe('item 13: what a token must be', () => {
  // PostgREST's codes: PGRST301 for a token it cannot accept, PGRST303 for
  // one whose time claims refuse it (not yet valid).
  async function refused(key: string, code = 'PGRST301', url = plinthUrl, anon = anonKey) {
    const client = createClient(url, key, serverSide)
    const { error, status } = await client.from('categories').select('id').limit(1)
    expect(status).toBe(401)
    expect(error?.code).toBe(code)
    const user = await createClient(url, anon, serverSide).auth.getUser(key)
    expect(user.error?.status).toBe(403)
    expect(user.data.user).toBeNull()
  }

  it('refuses keys before their nbf', async () => {
    await refused(sign({ role: 'service_role', sub: crypto.randomUUID(), nbf: now() + 600, exp: now() + 3600 }), 'PGRST303')
  })

  it('refuses keys without exp where PLINTH_JWT_REQUIRE_EXP is on', async () => {
    const secret = 'a-secret-of-a-node-that-requires-exp-claims'
    const strict = await startOwnPlinth({ JWT_SECRET: secret, PLINTH_JWT_REQUIRE_EXP: 'true' })
    try {
      await refused(sign({ role: 'service_role', iss: 'supabase-demo', iat: now() }, secret), 'PGRST301', strict.url, strict.anonKey)
      const admin = createClient(strict.url, sign({ role: 'service_role', iss: 'supabase-demo', iat: now() }, secret), serverSide)
      const { data, error } = await admin.auth.admin.listUsers()
      expect(error?.status).toBe(401)
      expect(data.users).toEqual([])
      // Its own keys carry exp and work.
      const own = createClient(strict.url, strict.serviceRoleKey, serverSide)
      expect((await own.auth.admin.listUsers()).error).toBeNull()
    } finally {
      await strict.stop()
    }
  })

  it('refuses storage URL tokens as API keys', async () => {
    const service = serviceClient()
    const bucket = `item13-${Date.now().toString(36)}`
    expect((await service.storage.createBucket(bucket, { public: false })).error).toBeNull()
    expect((await service.storage.from(bucket).upload('note.txt', 'hello', { contentType: 'text/plain' })).error).toBeNull()
    const { data, error } = await service.storage.from(bucket).createSignedUrl('note.txt', 600)
    expect(error).toBeNull()
    const download = await fetch(data!.signedUrl)
    expect(await download.text()).toBe('hello')
    await refused(new URL(data!.signedUrl).searchParams.get('token')!)
  })
})

describe('review 2, item 10: tokens without exp work, as on the platform', () => {
  it('a service key without exp lists users, reads rows and buckets', async () => {
    const email = uniqueEmail('no-exp')
    const id = await seededUser(email)
    const service = createClient(plinthUrl, sign({ role: 'service_role', iss: 'supabase-demo', iat: now() }), serverSide)
    const { data, error } = await service.auth.admin.listUsers()
    expect(error).toBeNull()
    expect(data.users.length).toBeGreaterThan(0)
    expect((await service.auth.admin.getUserById(id)).data.user?.email).toBe(email)
    expect((await service.from('categories').select('id').limit(1)).status).toBe(200)
    expect((await service.storage.listBuckets()).error).toBeNull()
    // A user's token without exp is that user's.
    const session = sign({ sub: id, role: 'authenticated', aud: 'authenticated', email, iat: now() })
    const user = await anonClient().auth.getUser(session)
    expect(user.error).toBeNull()
    expect(user.data.user?.id).toBe(id)
    // An exp present is still checked.
    const expired = createClient(plinthUrl, sign({ role: 'service_role', iat: now() - 120, exp: now() - 60 }), serverSide)
    expect((await expired.from('categories').select('id').limit(1)).status).toBe(401)
    expect((await expired.auth.admin.listUsers()).error?.status).toBe(401)
  })
})
