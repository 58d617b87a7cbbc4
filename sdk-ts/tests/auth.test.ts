// supabase.auth.* from the unmodified client against /auth/v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, type AuthChangeEvent } from '@supabase/supabase-js'
import { GITHUB_USER } from './support/fake-github'
import {
  browserClient,
  mailboxLinks,
  memoryStorage,
  plinthUrl,
  serviceClient,
  serviceRoleKey,
  siteUrl,
  sql,
  uniqueEmail,
} from './support/context'
import { startOwnPlinth, type OwnPlinth } from './support/own-plinth'
import ws from 'ws'

const PASSWORD = 'correct-horse-battery'

const ONE_OF_TWO = 'Confirmation link accepted. Please proceed to confirm link sent to the other email'

/** The newest dev-mailbox message to `to`: its text and links. */
async function newestMail(to: string): Promise<{ text: string; links: string[] }> {
  const response = await fetch(`${plinthUrl}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, {
    headers: { apikey: serviceRoleKey },
  })
  const { messages } = (await response.json()) as { messages: { text: string; links: string[] }[] }
  expect(messages.length, `mail to ${to}`).toBeGreaterThan(0)
  return messages[0]
}

/** The six-digit code of the newest mail to `to`. */
async function mailedCode(to: string): Promise<string> {
  const match = (await newestMail(to)).text.match(/code: (\d{6})/)
  expect(match).not.toBeNull()
  return match![1]
}

/** Follows redirects by hand and returns the final Location that leaves plinth and the provider. */
async function followRedirects(start: string, stopAt: string): Promise<URL> {
  let url = start
  for (let hop = 0; hop < 10; hop++) {
    if (url.startsWith(stopAt)) return new URL(url)
    const response = await fetch(url, { redirect: 'manual' })
    const location = response.headers.get('location')
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    }
    url = new URL(location, url).toString()
  }
  throw new Error('too many redirects')
}

describe('e-mail and password', () => {
  it('signs up, confirms through the mailbox, signs in, reads and updates the user, refreshes and signs out', async () => {
    const supabase = browserClient()
    const events: AuthChangeEvent[] = []
    const { data: listener } = supabase.auth.onAuthStateChange((event) => void events.push(event))
    const email = uniqueEmail('signup')

    const signUp = await supabase.auth.signUp({
      email,
      password: PASSWORD,
      options: { data: { display_name: 'Node Tester', avatar_url: '' }, emailRedirectTo: siteUrl },
    })
    expect(signUp.error).toBeNull()
    expect(signUp.data.user?.email).toBe(email)
    expect(signUp.data.session).toBeNull() // confirmation pending
    expect(signUp.data.user?.user_metadata.display_name).toBe('Node Tester')

    const early = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
    expect(early.error?.code).toBe('email_not_confirmed')

    // The confirmation link from the dev mailbox.
    const link = (await mailboxLinks(email)).find((l) => l.includes('/auth/v1/verify'))
    expect(link).toBeDefined()
    const landed = await followRedirects(link!, siteUrl)
    expect(landed.origin).toBe(new URL(siteUrl).origin)
    const confirmed = await sql<{ email_confirmed_at: Date | null }>(
      'select email_confirmed_at from auth.users where email = $1',
      [email],
    )
    expect(confirmed[0].email_confirmed_at).not.toBeNull()

    const wrong = await supabase.auth.signInWithPassword({ email, password: 'not-the-password' })
    expect(wrong.error?.code).toBe('invalid_credentials')
    expect(wrong.error?.status).toBe(400)

    const signIn = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
    expect(signIn.error).toBeNull()
    const session = signIn.data.session!
    expect(session.token_type).toBe('bearer')
    expect(session.expires_in).toBe(3600)
    expect(session.user.id).toBe(signUp.data.user!.id)

    const { data: got, error: getError } = await supabase.auth.getUser()
    expect(getError).toBeNull()
    expect(got.user?.email).toBe(email)

    const updated = await supabase.auth.updateUser({ data: { display_name: 'Renamed' } })
    expect(updated.error).toBeNull()
    expect(updated.data.user?.user_metadata.display_name).toBe('Renamed')
    // The profile trigger saw the sign-up metadata.
    const profile = await sql<{ display_name: string }>('select display_name from public.profiles where id = $1', [
      session.user.id,
    ])
    expect(profile[0].display_name).toBe('Node Tester')

    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(refreshed.data.session?.refresh_token).not.toBe(session.refresh_token)
    expect(refreshed.data.session?.user.user_metadata.display_name).toBe('Renamed')

    // The rotated-out refresh token no longer works once the reuse window has passed;
    // within it, the platform hands back the current token instead of failing.
    const { error: signOutError } = await supabase.auth.signOut()
    expect(signOutError).toBeNull()
    const after = await supabase.auth.getSession()
    expect(after.data.session).toBeNull()
    const stale = await fetch(`${plinthUrl}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { apikey: (supabase as unknown as { supabaseKey: string }).supabaseKey, 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: refreshed.data.session!.refresh_token }),
    })
    expect(stale.status).toBe(400)

    listener.subscription.unsubscribe()
    expect(events).toEqual(['INITIAL_SESSION', 'SIGNED_IN', 'USER_UPDATED', 'TOKEN_REFRESHED', 'SIGNED_OUT'])
  })

  it('rejects a weak password and a taken e-mail with the platform codes', async () => {
    const supabase = browserClient()
    const weak = await supabase.auth.signUp({ email: uniqueEmail('weak'), password: '123' })
    expect(weak.error?.code).toBe('weak_password')
    expect(weak.error?.status).toBe(422)

    const email = uniqueEmail('taken')
    await sql(
      `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at)
       values ('00000000-0000-0000-0000-000000000000', gen_random_uuid(), 'authenticated', 'authenticated', $1,
               crypt($2, gen_salt('bf')), now(), now(), now())`,
      [email, PASSWORD],
    )
    // A user seeded with a bcrypt hash, as platform seed files do, signs in.
    const seeded = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
    expect(seeded.error).toBeNull()
    expect(seeded.data.user?.email).toBe(email)
    const hash = await sql<{ encrypted_password: string }>('select encrypted_password from auth.users where email = $1', [email])
    expect(hash[0].encrypted_password.startsWith('$argon2id$')).toBe(true)
  })

  it('answers getUser without a session with a client-side missing-session error', async () => {
    const supabase = browserClient()
    const { data, error } = await supabase.auth.getUser()
    expect(data.user).toBeNull()
    expect(error?.name).toBe('AuthSessionMissingError')
  })
})

describe('e-mail change (secure e-mail change, on by default as on the platform)', () => {
  async function signedIn(tag: string, flowType: 'implicit' | 'pkce') {
    const email = uniqueEmail(tag)
    const created = await serviceClient().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
    expect(created.error).toBeNull()
    const supabase = browserClient(flowType)
    expect((await supabase.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull()
    return { supabase, email }
  }

  it('needs the new address and the current one: the link mailed to one, the code mailed to the other', async () => {
    const { supabase, email } = await signedIn('change-old', 'pkce')
    const newEmail = uniqueEmail('change-new')
    const asked = await supabase.auth.updateUser({ email: newEmail }, { emailRedirectTo: siteUrl })
    expect(asked.error).toBeNull()
    expect(asked.data.user?.email).toBe(email)
    expect(asked.data.user?.new_email).toBe(newEmail)

    // Both addresses got a mail, each with its own link.
    const toNew = (await mailboxLinks(newEmail)).find((l) => l.includes('type=email_change'))!
    const toCurrent = (await mailboxLinks(email)).find((l) => l.includes('type=email_change'))!
    expect(toNew).toBeDefined()
    expect(toCurrent).toBeDefined()
    expect(toNew).not.toBe(toCurrent)

    // The new address's link: accepted, nothing changed yet.
    const first = await fetch(toNew, { redirect: 'manual' })
    expect(first.status).toBe(303)
    const landed = new URL(first.headers.get('location')!)
    expect(landed.origin).toBe(new URL(siteUrl).origin)
    // (a PKCE flow's redirect carries the message in the query too)
    expect(landed.searchParams.get('message')).toBe(ONE_OF_TWO)
    expect(new URLSearchParams(landed.hash.slice(1)).get('message')).toBe(ONE_OF_TWO)
    const pending = await supabase.auth.getUser()
    expect(pending.data.user?.email).toBe(email)
    expect(pending.data.user?.new_email).toBe(newEmail)

    // The current address's code: the change is made.
    const verified = await supabase.auth.verifyOtp({ type: 'email_change', email, token: await mailedCode(email) })
    expect(verified.error).toBeNull()
    expect(verified.data.session).not.toBeNull()
    expect(verified.data.user?.email).toBe(newEmail)
    expect((await supabase.auth.getUser()).data.user?.email).toBe(newEmail)
    expect((await browserClient().auth.signInWithPassword({ email: newEmail, password: PASSWORD })).error).toBeNull()
    expect((await browserClient().auth.signInWithPassword({ email, password: PASSWORD })).error?.code).toBe(
      'invalid_credentials',
    )
  })

  it('a code first answers without a session; the other address\'s link then signs in with the new address', async () => {
    const { supabase, email } = await signedIn('change-code', 'implicit')
    const newEmail = uniqueEmail('change-code-new')
    expect((await supabase.auth.updateUser({ email: newEmail }, { emailRedirectTo: siteUrl })).error).toBeNull()

    const first = await supabase.auth.verifyOtp({ type: 'email_change', email: newEmail, token: await mailedCode(newEmail) })
    expect(first.error).toBeNull()
    expect(first.data).toEqual({ user: null, session: null })
    expect((await supabase.auth.getUser()).data.user?.email).toBe(email)

    const link = (await newestMail(email)).links.find((l) => l.includes('type=email_change'))!
    const landed = await followRedirects(link, siteUrl)
    const fragment = new URLSearchParams(landed.hash.slice(1))
    expect(fragment.get('type')).toBe('email_change')
    const { data } = await supabase.auth.getUser(fragment.get('access_token')!)
    expect(data.user?.email).toBe(newEmail)
    expect(data.user?.new_email).toBeUndefined()
  })
})

describe('a node with the local stack\'s gateway (PLINTH_AUTH_REQUIRE_APIKEY=false)', () => {
  let local: OwnPlinth

  beforeAll(async () => {
    local = await startOwnPlinth({ PLINTH_AUTH_REQUIRE_APIKEY: 'false', ENABLE_EMAIL_AUTOCONFIRM: 'true' })
  }, 120_000)

  afterAll(async () => {
    await local?.stop()
  })

  it('answers /auth/v1 without an apikey, /health included; the hosted default does not', async () => {
    expect((await fetch(`${local.url}/auth/v1/health`)).status).toBe(200)
    const hosted = await fetch(`${plinthUrl}/auth/v1/health`)
    expect(hosted.status).toBe(401)
    expect(((await hosted.json()) as { message: string }).message).toBe('No API key found in request')

    // The unmodified client, with every apikey header taken off its requests.
    const sent: (string | null)[] = []
    const withoutKey: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers)
      headers.delete('apikey')
      sent.push(headers.get('apikey'))
      return fetch(input, { ...init, headers })
    }
    const supabase = createClient(local.url, local.anonKey, {
      auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
      global: { fetch: withoutKey },
      // (Node 20 has no WebSocket of its own)
      realtime: { transport: ws as unknown as typeof WebSocket },
    })
    const email = uniqueEmail('local-gateway')
    const signUp = await supabase.auth.signUp({ email, password: PASSWORD })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session).not.toBeNull()
    const { data, error } = await supabase.auth.getUser()
    expect(error).toBeNull()
    expect(data.user?.email).toBe(email)
    expect((await supabase.auth.signOut()).error).toBeNull()
    expect(sent.length).toBeGreaterThanOrEqual(3)
    expect(sent.every((key) => key === null)).toBe(true)
  })
})

describe('GitHub sign-in (a local stand-in speaking GitHub\'s protocol)', () => {
  it('signs in with PKCE: authorize, provider, callback, code exchange', async () => {
    const supabase = browserClient('pkce')
    const { data, error } = await supabase.auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: `${siteUrl}/after-login`, skipBrowserRedirect: true },
    })
    expect(error).toBeNull()
    expect(data.url).toContain('/auth/v1/authorize?provider=github')
    expect(data.url).toContain('code_challenge=')

    const landed = await followRedirects(data.url!, siteUrl)
    expect(landed.pathname).toBe('/after-login')
    const code = landed.searchParams.get('code')
    expect(code).toBeTruthy()

    const exchanged = await supabase.auth.exchangeCodeForSession(code!)
    expect(exchanged.error).toBeNull()
    const user = exchanged.data.session!.user
    expect(user.email).toBe(GITHUB_USER.email)
    expect(user.app_metadata.provider).toBe('github')
    expect(user.user_metadata.user_name ?? user.user_metadata.preferred_username).toBe(GITHUB_USER.login)

    // A code is good once.
    const again = await supabase.auth.exchangeCodeForSession(code!)
    expect(again.error).not.toBeNull()
  })

  it('signs in with the implicit flow: tokens in the URL fragment', async () => {
    const supabase = browserClient('implicit')
    const { data } = await supabase.auth.signInWithOAuth({
      provider: 'github',
      options: { redirectTo: siteUrl, skipBrowserRedirect: true },
    })
    const landed = await followRedirects(data.url!, siteUrl)
    const fragment = new URLSearchParams(landed.hash.slice(1))
    expect(fragment.get('token_type')).toBe('bearer')
    const accessToken = fragment.get('access_token')!
    const { data: got, error } = await supabase.auth.getUser(accessToken)
    expect(error).toBeNull()
    expect(got.user?.email).toBe(GITHUB_USER.email)
  })

  it('refuses a provider that is not enabled: back to an allowed redirect_to with the error, else JSON', async () => {
    const back = await fetch(`${plinthUrl}/auth/v1/authorize?provider=google&redirect_to=${encodeURIComponent(siteUrl)}`, {
      redirect: 'manual',
    })
    expect(back.status).toBe(302)
    const location = new URL(back.headers.get('location') ?? '')
    expect(`${location.origin}${location.pathname}`).toBe(new URL(siteUrl).toString())
    const params = new URLSearchParams(location.hash.slice(1))
    expect(params.get('error')).toBeTruthy()
    expect(params.get('error_description')).toMatch(/not enabled/i)

    const response = await fetch(`${plinthUrl}/auth/v1/authorize?provider=google`, { redirect: 'manual' })
    expect(response.status).toBe(400)
    const body = (await response.json()) as { msg?: string; message?: string }
    expect(body.msg ?? body.message).toMatch(/not enabled/i)
  })
})
