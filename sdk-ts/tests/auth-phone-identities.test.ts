// supabase.auth.* from the unmodified client for phone sign-in (test
// numbers from GOTRUE_SMS_TEST_OTP, and real codes read from the dev
// mailbox), identity linking and unlinking, anonymous users made permanent,
// and reauthentication with a nonce for a password change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient } from '@supabase/supabase-js'
import ws from 'ws'
import { browserClient, memoryStorage, plinthUrl, serviceClient, serviceRoleKey, siteUrl, sql, uniqueEmail } from './support/context'
import { startOwnPlinth, type OwnPlinth } from './support/own-plinth'

const PASSWORD = 'correct-horse-battery'

interface Message {
  to: string
  subject: string
  text: string
  links: string[]
}

/** The dev mailbox's messages to `to` (an address or `+<number>`), newest first. */
async function messagesTo(to: string): Promise<Message[]> {
  const response = await fetch(`${plinthUrl}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, {
    headers: { apikey: serviceRoleKey },
  })
  expect(response.status).toBe(200)
  return ((await response.json()) as { messages: Message[] }).messages
}

/** The code of the newest SMS to `phone` ("Your code is 123456"). */
async function smsCode(phone: string): Promise<string> {
  const [sms] = await messagesTo(phone)
  expect(sms?.subject).toBe('SMS')
  const match = sms.text.match(/^Your code is (\d{6})$/)
  expect(match).not.toBeNull()
  return match![1]
}

/** A number nobody else in the suite uses. */
function uniquePhone(): string {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`
}

/** Follows redirects by hand; the first URL under `stopAt`. */
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

function claims(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())
}

describe('phone', () => {
  it('signs in a test number with its fixed code, and nothing is sent', async () => {
    const supabase = browserClient()
    const sent = await supabase.auth.signInWithOtp({ phone: '+15550001111' })
    expect(sent.error).toBeNull()
    expect(sent.data.messageId).toBe('test-otp')
    expect(await messagesTo('+15550001111')).toEqual([])

    const wrong = await supabase.auth.verifyOtp({ phone: '+15550001111', token: '111111', type: 'sms' })
    expect(wrong.error?.code).toBe('otp_expired')
    expect(wrong.error?.status).toBe(403)

    const verified = await supabase.auth.verifyOtp({ phone: '+15550001111', token: '123456', type: 'sms' })
    expect(verified.error).toBeNull()
    expect(verified.data.session).not.toBeNull()
    expect(verified.data.user?.phone).toBe('15550001111')
    expect(verified.data.user?.phone_confirmed_at).toBeTruthy()
    const token = claims(verified.data.session!.access_token)
    expect(token.phone).toBe('15550001111')
    expect(token.amr[0].method).toBe('otp')

    // Asked again within GOTRUE_SMS_MAX_FREQUENCY: the platform's 429.
    const soon = await supabase.auth.signInWithOtp({ phone: '+15550001111' })
    expect(soon.error?.code).toBe('over_sms_send_rate_limit')
    expect(soon.error?.status).toBe(429)
  })

  it('signs up with a number and password, confirmed by the code from the dev mailbox', async () => {
    const supabase = browserClient()
    const phone = uniquePhone()
    const signUp = await supabase.auth.signUp({ phone, password: PASSWORD, options: { data: { name: 'Phoney' } } })
    expect(signUp.error).toBeNull()
    expect(signUp.data.session).toBeNull()
    expect(signUp.data.user?.phone).toBe(phone.slice(1))
    expect(signUp.data.user?.user_metadata.name).toBe('Phoney')

    const early = await supabase.auth.signInWithPassword({ phone, password: PASSWORD })
    expect(early.error?.code).toBe('phone_not_confirmed')

    const code = await smsCode(phone)
    const verified = await supabase.auth.verifyOtp({ phone, token: code, type: 'sms' })
    expect(verified.error).toBeNull()
    expect(verified.data.user?.id).toBe(signUp.data.user?.id)

    const signedIn = await browserClient().auth.signInWithPassword({ phone, password: PASSWORD })
    expect(signedIn.error).toBeNull()
    expect(signedIn.data.user?.phone).toBe(phone.slice(1))
    const { data: identities } = await supabase.auth.getUserIdentities()
    expect(identities?.identities.map((i) => i.provider)).toEqual(['phone'])

    const bad = await browserClient().auth.signUp({ phone: '12ab', password: PASSWORD })
    expect(bad.error?.code).toBe('validation_failed')
    expect(bad.error?.message).toBe('Invalid phone number format (E.164 required)')
  })
})

describe('phone sign-in off (GOTRUE_EXTERNAL_PHONE_ENABLED=false, the default)', () => {
  let off: OwnPlinth

  beforeAll(async () => {
    off = await startOwnPlinth({ ENABLE_EMAIL_AUTOCONFIRM: 'true' })
  }, 120_000)

  afterAll(async () => {
    await off?.stop()
  })

  function client() {
    return createClient(off.url, off.anonKey, {
      auth: { storage: memoryStorage(), persistSession: true, autoRefreshToken: false, detectSessionInUrl: false },
      // (Node 20 has no WebSocket of its own)
      realtime: { transport: ws as unknown as typeof WebSocket },
    })
  }

  async function mailTo(to: string): Promise<unknown[]> {
    const response = await fetch(`${off.url}/_/mailbox/api/messages?to=${encodeURIComponent(to)}`, {
      headers: { apikey: off.serviceRoleKey },
    })
    return ((await response.json()) as { messages: unknown[] }).messages
  }

  it('answers the platform\'s errors, and no text waits in the dev mailbox', async () => {
    const phone = uniquePhone()
    const otp = await client().auth.signInWithOtp({ phone })
    expect(otp.error?.code).toBe('phone_provider_disabled')
    expect(otp.error?.status).toBe(400)
    expect(otp.error?.message).toBe('Unsupported phone provider')
    const signUp = await client().auth.signUp({ phone, password: PASSWORD })
    expect(signUp.error?.code).toBe('phone_provider_disabled')
    const password = await client().auth.signInWithPassword({ phone, password: PASSWORD })
    expect(password.error?.code).toBe('phone_provider_disabled')
    expect(password.error?.status).toBe(422)
    const resend = await client().auth.resend({ type: 'sms', phone })
    expect(resend.error?.code).toBe('phone_provider_disabled')

    // A number added to an e-mail account: no SMS provider to send its code.
    const supabase = client()
    const email = uniqueEmail('phone-off')
    expect((await supabase.auth.signUp({ email, password: PASSWORD })).error).toBeNull()
    const added = await supabase.auth.updateUser({ phone })
    // (supabase-js reads any 500 as a retryable fetch error, without the body)
    expect(added.error?.status).toBe(500)
    const { data: session } = await supabase.auth.getSession()
    const raw = await fetch(`${off.url}/auth/v1/user`, {
      method: 'PUT',
      headers: {
        apikey: off.anonKey,
        authorization: `Bearer ${session.session!.access_token}`,
        'content-type': 'application/json',
        'x-supabase-api-version': '2024-01-01',
      },
      body: JSON.stringify({ phone }),
    })
    expect(raw.status).toBe(500)
    expect(await raw.json()).toEqual({ code: 'unexpected_failure', message: 'Unable to get SMS provider' })
    expect(await mailTo(phone)).toEqual([])
    expect((await supabase.auth.getUser()).data.user?.new_phone).toBeUndefined()
  })
})

describe('identities', () => {
  it('an anonymous user links GitHub (becoming permanent), adds a number, and unlinks down to one identity', async () => {
    const supabase = browserClient()
    const anon = await supabase.auth.signInAnonymously()
    expect(anon.error).toBeNull()
    expect(anon.data.user?.is_anonymous).toBe(true)
    const userId = anon.data.user!.id

    const login = `linker${Date.now().toString(36)}`
    const link = await supabase.auth.linkIdentity({
      provider: 'github',
      options: { redirectTo: siteUrl, queryParams: { login } },
    })
    expect(link.error).toBeNull()
    expect(link.data.url).toContain('/login/oauth/authorize')
    const landed = await followRedirects(link.data.url!, siteUrl)
    const code = landed.searchParams.get('code')
    expect(code, landed.toString()).toBeTruthy()
    const exchanged = await supabase.auth.exchangeCodeForSession(code!)
    expect(exchanged.error).toBeNull()
    expect(exchanged.data.user?.id).toBe(userId)
    expect(exchanged.data.user?.is_anonymous).toBe(false)
    expect(exchanged.data.user?.email).toBe(`${login}@example.com`)
    expect(claims(exchanged.data.session!.access_token).is_anonymous).toBe(false)

    // The same GitHub account cannot be linked twice.
    const again = await supabase.auth.linkIdentity({
      provider: 'github',
      options: { redirectTo: siteUrl, queryParams: { login } },
    })
    const refused = await followRedirects(again.data.url!, siteUrl)
    expect(refused.searchParams.get('error_code')).toBe('identity_already_exists')

    // A number, confirmed by the code sent to it.
    const phone = uniquePhone()
    const update = await supabase.auth.updateUser({ phone })
    expect(update.error).toBeNull()
    const phoneCode = await smsCode(phone)
    const changed = await supabase.auth.verifyOtp({ phone, token: phoneCode, type: 'phone_change' })
    expect(changed.error).toBeNull()
    expect(changed.data.user?.phone).toBe(phone.slice(1))

    const { data, error } = await supabase.auth.getUserIdentities()
    expect(error).toBeNull()
    const providers = data!.identities.map((i) => i.provider).sort()
    expect(providers).toEqual(['github', 'phone'])
    const github = data!.identities.find((i) => i.provider === 'github')!
    const phoneIdentity = data!.identities.find((i) => i.provider === 'phone')!

    const unlinked = await supabase.auth.unlinkIdentity(github)
    expect(unlinked.error).toBeNull()
    const { data: after } = await supabase.auth.getUserIdentities()
    expect(after!.identities.map((i) => i.provider)).toEqual(['phone'])
    const { data: me } = await supabase.auth.getUser()
    expect(me.user?.app_metadata.providers).toEqual(['phone'])

    const last = await supabase.auth.unlinkIdentity(phoneIdentity)
    expect(last.error?.code).toBe('single_identity_not_deletable')
    expect(last.error?.status).toBe(422)
  })

  it('an anonymous user becomes permanent by confirming an e-mail address', async () => {
    const supabase = browserClient()
    const anon = await supabase.auth.signInAnonymously()
    expect(anon.error).toBeNull()
    const refused = await supabase.auth.updateUser({ password: PASSWORD })
    expect(refused.error?.code).toBe('validation_failed')

    const email = uniqueEmail('anon-upgrade')
    const update = await supabase.auth.updateUser({ email })
    expect(update.error).toBeNull()
    const [mail] = await messagesTo(email)
    const link = mail.links.find((l) => l.includes('/auth/v1/verify'))!
    await followRedirects(link, siteUrl)
    const rows = await sql<{ email: string; is_anonymous: boolean }>(
      'select email, is_anonymous from auth.users where id = $1',
      [anon.data.user!.id],
    )
    expect(rows[0]).toEqual({ email, is_anonymous: false })
  })
})

describe('reauthentication', () => {
  it('a password change in a day-old session needs the nonce sent by reauthenticate()', async () => {
    const email = uniqueEmail('reauth')
    const created = await serviceClient().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
    expect(created.error).toBeNull()
    const supabase = browserClient()
    const signIn = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
    expect(signIn.error).toBeNull()

    // A fresh session needs none.
    const fresh = await supabase.auth.updateUser({ password: `${PASSWORD}-2` })
    expect(fresh.error).toBeNull()

    // The session is a day old now.
    await sql(`update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`, [
      created.data.user!.id,
    ])
    const needed = await supabase.auth.updateUser({ password: `${PASSWORD}-3` })
    expect(needed.error?.code).toBe('reauthentication_needed')
    expect(needed.error?.status).toBe(400)

    const sent = await supabase.auth.reauthenticate()
    expect(sent.error).toBeNull()
    const [mail] = await messagesTo(email)
    expect(mail.subject).toBe('Confirm reauthentication')
    const nonce = mail.text.match(/^(\d{6})$/m)![1]

    const wrong = await supabase.auth.updateUser({ password: `${PASSWORD}-3`, nonce: nonce === '000000' ? '111111' : '000000' })
    expect(wrong.error?.code).toBe('reauthentication_not_valid')
    const changed = await supabase.auth.updateUser({ password: `${PASSWORD}-3`, nonce })
    expect(changed.error).toBeNull()
    const reused = await supabase.auth.updateUser({ password: `${PASSWORD}-4`, nonce })
    expect(reused.error?.code).toBe('reauthentication_not_valid')

    const again = await browserClient().auth.signInWithPassword({ email, password: `${PASSWORD}-3` })
    expect(again.error).toBeNull()
  })

  it('phone users get the nonce by SMS (a test number here)', async () => {
    const supabase = browserClient()
    const sent0 = await supabase.auth.signInWithOtp({ phone: '+15550001112' })
    expect(sent0.error).toBeNull()
    const verified = await supabase.auth.verifyOtp({ phone: '+15550001112', token: '654321', type: 'sms' })
    expect(verified.error).toBeNull()
    const { data } = await supabase.auth.getUser()
    await sql(`update auth.sessions set created_at = now() - interval '25 hours' where user_id = $1`, [data.user!.id])
    const needed = await supabase.auth.updateUser({ password: PASSWORD })
    expect(needed.error?.code).toBe('reauthentication_needed')
    const sent = await supabase.auth.reauthenticate()
    expect(sent.error).toBeNull()
    const changed = await supabase.auth.updateUser({ password: PASSWORD, nonce: '654321' })
    expect(changed.error).toBeNull()
    const signedIn = await browserClient().auth.signInWithPassword({ phone: '+15550001112', password: PASSWORD })
    expect(signedIn.error).toBeNull()
  })
})
