// supabase.auth.admin.* (and signInWithSSO) from the unmodified client:
// every admin endpoint the platform's auth server offers, except MFA factors.
import { describe, expect, it } from 'vitest'
import {
  anonClient,
  browserClient,
  mailboxLinks,
  plinthUrl,
  serviceClient,
  serviceRoleKey,
  siteUrl,
  sql,
  uniqueEmail,
} from './support/context'

const PASSWORD = 'correct-horse-battery'

/** Follows an e-mail link to its redirect and returns the fragment's parameters. */
async function follow(link: string): Promise<URLSearchParams> {
  const response = await fetch(link, { redirect: 'manual' })
  expect(response.status).toBe(303)
  const location = response.headers.get('location') ?? ''
  return new URLSearchParams(location.split('#')[1] ?? '')
}

describe('auth.admin', () => {
  it('creates, reads, lists with paging, updates and deletes users', async () => {
    const admin = serviceClient().auth.admin
    const tag = `page-${Date.now().toString(36)}`
    const emails = [0, 1, 2].map((i) => uniqueEmail(`${tag}-${i}`))
    const ids: string[] = []
    for (const email of emails) {
      const created = await admin.createUser({
        email,
        password: PASSWORD,
        email_confirm: true,
        user_metadata: { tag },
        app_metadata: { plan: 'pro' },
      })
      expect(created.error).toBeNull()
      expect(created.data.user?.email).toBe(email)
      expect(created.data.user?.app_metadata.plan).toBe('pro')
      ids.push(created.data.user!.id)
    }
    const dup = await admin.createUser({ email: emails[0], password: PASSWORD })
    expect(dup.error?.code).toBe('email_exists')
    expect(dup.error?.status).toBe(422)

    const got = await admin.getUserById(ids[1])
    expect(got.data.user?.email).toBe(emails[1])
    const missing = await admin.getUserById('00000000-0000-0000-0000-000000000000')
    expect(missing.error?.code).toBe('user_not_found')
    expect(missing.error?.status).toBe(404)

    // Paging: newest first, one per page; supabase-js reads the Link and X-Total-Count headers.
    const first = await admin.listUsers({ page: 1, perPage: 1 })
    expect(first.error).toBeNull()
    expect(first.data.users).toHaveLength(1)
    const paging = (data: unknown) => data as { total: number; nextPage: number | null; lastPage: number }
    expect(paging(first.data).total).toBeGreaterThanOrEqual(3)
    expect(paging(first.data).nextPage).toBe(2)
    // supabase-js keeps only the first digit of the last page's number
    // (GoTrueAdminApi.listUsers: `substring(0, 1)`); the Link header names it whole.
    const total = paging(first.data).total
    expect(paging(first.data).lastPage).toBe(Number(String(total)[0]))
    const raw = await fetch(`${plinthUrl}/auth/v1/admin/users?page=1&per_page=1`, {
      headers: { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}` },
    })
    expect(raw.headers.get('x-total-count')).toBe(String(total))
    expect(raw.headers.get('link')).toContain(`page=${total}&per_page=1>; rel="last"`)
    const second = await admin.listUsers({ page: 2, perPage: 1 })
    expect(second.data.users[0].id).not.toBe(first.data.users[0].id)
    const all = await admin.listUsers({ perPage: 1000 })
    const mine = all.data.users.filter((u) => u.user_metadata.tag === tag).map((u) => u.email)
    expect(mine).toEqual([...emails].reverse())
    expect(paging(all.data).nextPage).toBeNull()

    const updated = await admin.updateUserById(ids[0], { user_metadata: { extra: 1 }, email: emails[0].toUpperCase() })
    expect(updated.error).toBeNull()
    expect(updated.data.user?.user_metadata).toMatchObject({ tag, extra: 1 })
    expect(updated.data.user?.email).toBe(emails[0])
    const bad = await admin.updateUserById(ids[0], { email: 'no-at-sign' })
    expect(bad.error?.code).toBe('validation_failed')
    expect(bad.error?.message).toBe('Unable to validate email address: invalid format')

    // Soft delete keeps the row out of sight; hard delete removes it.
    const soft = await admin.deleteUser(ids[1], true)
    expect(soft.error).toBeNull()
    const softRow = await sql<{ deleted_at: Date | null }>('select deleted_at from auth.users where id = $1', [ids[1]])
    expect(softRow[0].deleted_at).not.toBeNull()
    expect((await admin.getUserById(ids[1])).error?.code).toBe('user_not_found')
    const hard = await admin.deleteUser(ids[2])
    expect(hard.error).toBeNull()
    expect(await sql('select 1 from auth.users where id = $1', [ids[2]])).toHaveLength(0)
    expect((await admin.deleteUser(ids[2])).error?.code).toBe('user_not_found')

    // Only the service role.
    const notAdmin = await anonClient().auth.admin.listUsers()
    expect(notAdmin.error?.status).toBe(403)
  })

  it('bans and unbans a user', async () => {
    const admin = serviceClient().auth.admin
    const email = uniqueEmail('banned')
    const created = await admin.createUser({ email, password: PASSWORD, email_confirm: true })
    const id = created.data.user!.id
    const client = browserClient()
    const before = await client.auth.signInWithPassword({ email, password: PASSWORD })
    expect(before.error).toBeNull()

    const banned = await admin.updateUserById(id, { ban_duration: '24h' })
    expect(banned.error).toBeNull()
    expect(new Date((banned.data.user as { banned_until?: string }).banned_until!).getTime()).toBeGreaterThan(Date.now())
    const signIn = await browserClient().auth.signInWithPassword({ email, password: PASSWORD })
    expect(signIn.error?.code).toBe('user_banned')
    const refreshed = await client.auth.refreshSession()
    expect(refreshed.error?.code).toBe('user_banned')
    const bad = await admin.updateUserById(id, { ban_duration: 'forever' })
    expect(bad.error?.code).toBe('validation_failed')

    const unbanned = await admin.updateUserById(id, { ban_duration: 'none' })
    expect(unbanned.error).toBeNull()
    expect(await browserClient().auth.signInWithPassword({ email, password: PASSWORD })).toMatchObject({ error: null })
  })

  it('generates every kind of link, and the links work', async () => {
    const admin = serviceClient().auth.admin

    const signupEmail = uniqueEmail('gen-signup')
    const signup = await admin.generateLink({
      type: 'signup',
      email: signupEmail,
      password: PASSWORD,
      options: { data: { from: 'admin' }, redirectTo: siteUrl },
    })
    expect(signup.error).toBeNull()
    expect(signup.data.user?.email).toBe(signupEmail)
    expect(signup.data.user?.user_metadata.from).toBe('admin')
    expect(signup.data.properties?.verification_type).toBe('signup')
    expect(signup.data.properties?.email_otp).toMatch(/^\d{6}$/)
    expect(signup.data.properties?.action_link).toContain('/auth/v1/verify?token=')
    expect(signup.data.properties?.redirect_to).toBe(siteUrl)
    expect((await follow(signup.data.properties!.action_link)).get('type')).toBe('signup')
    expect((await browserClient().auth.signInWithPassword({ email: signupEmail, password: PASSWORD })).error).toBeNull()
    // No mail went out.
    await expect(mailboxLinks(signupEmail)).rejects.toThrow('no mail')

    const magic = await admin.generateLink({ type: 'magiclink', email: signupEmail })
    expect(magic.data.properties?.verification_type).toBe('magiclink')
    const client = browserClient()
    const verified = await client.auth.verifyOtp({ type: 'magiclink', token_hash: magic.data.properties!.hashed_token })
    expect(verified.error).toBeNull()
    expect(verified.data.session?.user.email).toBe(signupEmail)

    const recovery = await admin.generateLink({ type: 'recovery', email: signupEmail })
    const code = await browserClient().auth.verifyOtp({
      type: 'recovery',
      email: signupEmail,
      token: recovery.data.properties!.email_otp,
    })
    expect(code.error).toBeNull()
    const nobody = await admin.generateLink({ type: 'recovery', email: uniqueEmail('nobody') })
    expect(nobody.error?.code).toBe('user_not_found')
    expect(nobody.error?.status).toBe(404)

    // Secure e-mail change (on, as on the platform): a change needs the link
    // for the new address and the one for the current address.
    const newEmail = uniqueEmail('gen-changed')
    const change = await admin.generateLink({ type: 'email_change_new', email: signupEmail, newEmail })
    expect(change.error).toBeNull()
    expect(change.data.properties?.verification_type).toBe('email_change_new')
    const current = await admin.generateLink({ type: 'email_change_current', email: signupEmail, newEmail })
    expect(current.error).toBeNull()
    expect(current.data.properties?.verification_type).toBe('email_change_current')
    const id = change.data.user!.id
    const first = await follow(change.data.properties!.action_link)
    expect(first.get('message')).toBe(
      'Confirmation link accepted. Please proceed to confirm link sent to the other email',
    )
    expect((await admin.getUserById(id)).data.user?.email).toBe(signupEmail)
    expect((await follow(current.data.properties!.action_link)).get('type')).toBe('email_change')
    expect((await admin.getUserById(id)).data.user?.email).toBe(newEmail)

    const inviteEmail = uniqueEmail('gen-invite')
    const invite = await admin.generateLink({ type: 'invite', email: inviteEmail, options: { data: { team: 'x' } } })
    expect(invite.data.properties?.verification_type).toBe('invite')
    expect(invite.data.user?.invited_at).toBeTruthy()
    const accepted = await follow(invite.data.properties!.action_link)
    expect(accepted.get('type')).toBe('invite')
    expect(accepted.get('access_token')).toBeTruthy()

    const invalid = await admin.generateLink({ type: 'magiclink', email: 'a@b@c' })
    expect(invalid.error?.code).toBe('validation_failed')
    expect(invalid.error?.status).toBe(400)
  })

  it('invites a user by e-mail, who follows the link and sets a password', async () => {
    const admin = serviceClient().auth.admin
    const email = uniqueEmail('invited')
    const invited = await admin.inviteUserByEmail(email, { data: { role: 'editor' }, redirectTo: siteUrl })
    expect(invited.error).toBeNull()
    expect(invited.data.user?.email).toBe(email)
    expect(invited.data.user?.invited_at).toBeTruthy()
    const link = (await mailboxLinks(email)).find((l) => l.includes('type=invite'))
    expect(link).toBeDefined()
    const fragment = await follow(link!)
    expect(fragment.get('type')).toBe('invite')

    const client = browserClient()
    const session = await client.auth.setSession({
      access_token: fragment.get('access_token')!,
      refresh_token: fragment.get('refresh_token')!,
    })
    expect(session.error).toBeNull()
    expect((await client.auth.updateUser({ password: PASSWORD })).error).toBeNull()
    expect((await browserClient().auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull()

    const again = await admin.inviteUserByEmail(email)
    expect(again.error?.code).toBe('email_exists')
    expect(again.error?.status).toBe(422)
    expect((await anonClient().auth.admin.inviteUserByEmail(uniqueEmail('x'))).error?.status).toBe(403)
  })

  it('signs a user out with each scope', async () => {
    const admin = serviceClient().auth.admin
    const email = uniqueEmail('scopes')
    await admin.createUser({ email, password: PASSWORD, email_confirm: true })
    const signIn = async () => {
      const client = browserClient()
      const { data, error } = await client.auth.signInWithPassword({ email, password: PASSWORD })
      expect(error).toBeNull()
      return { client, session: data.session! }
    }
    const a = await signIn()
    const b = await signIn()
    const c = await signIn()

    // others: everyone but the caller.
    expect((await admin.signOut(a.session.access_token, 'others')).error).toBeNull()
    expect((await b.client.auth.refreshSession()).error?.code).toBe('refresh_token_not_found')
    expect((await a.client.auth.refreshSession()).error).toBeNull()
    // local: only the caller.
    const d = await signIn()
    expect((await admin.signOut(d.session.access_token, 'local')).error).toBeNull()
    expect((await d.client.auth.refreshSession()).error?.code).toBe('refresh_token_not_found')
    expect((await a.client.auth.refreshSession()).error).toBeNull()
    // global (the default): all of them.
    const e = await signIn()
    expect((await admin.signOut(e.session.access_token)).error).toBeNull()
    expect((await a.client.auth.refreshSession()).error?.code).toBe('refresh_token_not_found')
    expect((await c.client.auth.refreshSession()).error?.code).toBe('refresh_token_not_found')
    const left = await sql('select 1 from auth.sessions s join auth.users u on u.id = s.user_id where u.email = $1', [email])
    expect(left).toHaveLength(0)
  })
})

describe('SAML SSO', () => {
  it('answers that SAML 2.0 is disabled', async () => {
    const { data, error } = await anonClient().auth.signInWithSSO({ domain: 'corp.example.com' })
    expect(data).toBeNull()
    expect(error?.code).toBe('saml_provider_disabled')
    expect(error?.status).toBe(404)
    expect(error?.message).toBe('SAML 2.0 is disabled')
    const byId = await anonClient().auth.signInWithSSO({ providerId: '00000000-0000-0000-0000-000000000000' })
    expect(byId.error?.code).toBe('saml_provider_disabled')
  })
})
