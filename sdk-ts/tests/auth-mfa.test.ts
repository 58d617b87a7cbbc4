// supabase.auth.mfa.* from the unmodified client against /auth/v1: TOTP
// end to end (the test is its own authenticator app: RFC 6238 with
// node:crypto), aal/amr in the tokens, and a row-level policy that asks for
// aal2 through /rest/v1.
import { beforeAll, describe, expect, it } from 'vitest'
import type { SupabaseClient } from '@supabase/supabase-js'
import { browserClient, serviceClient, sql, uniqueEmail } from './support/context'
import { totp } from './support/totp'

const PASSWORD = 'correct-horse-battery'

function claims(jwt: string): Record<string, any> {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString())
}

/** A confirmed user (made by the admin API) signed in with a password. */
async function signedIn(tag: string): Promise<{ supabase: SupabaseClient; email: string; id: string }> {
  const email = uniqueEmail(tag)
  const created = await serviceClient().auth.admin.createUser({ email, password: PASSWORD, email_confirm: true })
  expect(created.error).toBeNull()
  const supabase = browserClient()
  const signIn = await supabase.auth.signInWithPassword({ email, password: PASSWORD })
  expect(signIn.error).toBeNull()
  return { supabase, email, id: created.data.user!.id }
}

describe('TOTP factors', () => {
  it('enrol, challenge, verify: the session rises to aal2, refresh keeps it; listFactors and the assurance levels follow', async () => {
    const { supabase, email } = await signedIn('mfa')
    const before = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
    expect(before.error).toBeNull()
    expect(before.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' })
    expect(before.data!.currentAuthenticationMethods.map((m) => (typeof m === 'string' ? m : m.method))).toEqual(['password'])

    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app', issuer: 'Plinth Test' })
    expect(enrolled.error).toBeNull()
    const factor = enrolled.data!
    expect(factor.type).toBe('totp')
    expect(factor.friendly_name).toBe('Phone app')
    expect(factor.totp.secret).toMatch(/^[A-Z2-7]{32}$/)
    expect(factor.totp.uri).toBe(
      `otpauth://totp/Plinth%20Test:${email}?algorithm=SHA1&digits=6&issuer=Plinth+Test&period=30&secret=${factor.totp.secret}`,
    )
    // supabase-js makes the server's SVG a data URL.
    expect(factor.totp.qr_code.startsWith('data:image/svg+xml;utf-8,')).toBe(true)
    expect(factor.totp.qr_code).toContain('<svg')

    const listed = await supabase.auth.mfa.listFactors()
    expect(listed.error).toBeNull()
    expect(listed.data!.all.map((f) => [f.id, f.status])).toEqual([[factor.id, 'unverified']])
    expect(listed.data!.totp).toEqual([])

    // A wrong code: the platform's error, and still aal1.
    const challenge = await supabase.auth.mfa.challenge({ factorId: factor.id })
    expect(challenge.error).toBeNull()
    expect(challenge.data!.type).toBe('totp')
    expect(challenge.data!.expires_at).toBeGreaterThan(Date.now() / 1000)
    const wrong = await supabase.auth.mfa.verify({
      factorId: factor.id,
      challengeId: challenge.data!.id,
      code: totp(factor.totp.secret, Date.now() / 1000 + 300),
    })
    expect(wrong.error?.code).toBe('mfa_verification_failed')
    expect(wrong.error?.status).toBe(422)

    const code = totp(factor.totp.secret)
    const verified = await supabase.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code })
    expect(verified.error).toBeNull()
    const token = claims(verified.data!.access_token)
    expect(token.aal).toBe('aal2')
    expect(token.amr.map((e: { method: string }) => e.method)).toEqual(['totp', 'password'])

    const after = await supabase.auth.mfa.getAuthenticatorAssuranceLevel()
    expect(after.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' })
    const verifiedList = await supabase.auth.mfa.listFactors()
    expect(verifiedList.data!.totp.map((f) => f.id)).toEqual([factor.id])

    const refreshed = await supabase.auth.refreshSession()
    expect(refreshed.error).toBeNull()
    expect(claims(refreshed.data.session!.access_token).aal).toBe('aal2')

    // The same code again (a replay) is refused.
    const replay = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code })
    expect(replay.error?.code).toBe('mfa_verification_failed')

    // A new password sign-in is aal1 with aal2 next; the factor brings it up.
    const other = browserClient()
    expect((await other.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull()
    const pending = await other.auth.mfa.getAuthenticatorAssuranceLevel()
    expect(pending.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' })
    const notYet = await other.auth.mfa.unenroll({ factorId: factor.id })
    expect(notYet.error?.code).toBe('insufficient_aal')
    const raised = await other.auth.mfa.challengeAndVerify({
      factorId: factor.id,
      code: totp(factor.totp.secret, Date.now() / 1000 + 30),
    })
    expect(raised.error).toBeNull()
    expect((await other.auth.mfa.getAuthenticatorAssuranceLevel()).data?.currentLevel).toBe('aal2')

    // Unenrolling (from aal2) leaves no factor and the session aal1 at its next refresh.
    const removed = await other.auth.mfa.unenroll({ factorId: factor.id })
    expect(removed.error).toBeNull()
    expect(removed.data).toEqual({ id: factor.id })
    const again = await other.auth.refreshSession()
    expect(claims(again.data.session!.access_token).aal).toBe('aal1')
    expect((await other.auth.mfa.listFactors()).data!.all).toEqual([])
  })

  it('refuses other users, unknown factors and disabled types with the platform codes', async () => {
    const { supabase } = await signedIn('mfa-errors')
    const { supabase: stranger } = await signedIn('mfa-stranger')
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' })
    expect(enrolled.error).toBeNull()
    const theirs = await stranger.auth.mfa.challenge({ factorId: enrolled.data!.id })
    expect(theirs.error?.code).toBe('mfa_factor_not_found')
    expect(theirs.error?.status).toBe(404)
    const webauthn = await supabase.auth.mfa.enroll({ factorType: 'webauthn' } as never)
    expect(webauthn.error?.code).toBe('mfa_webauthn_enroll_not_enabled')
    const name = await supabase.auth.mfa.enroll({ factorType: 'totp' })
    expect(name.error?.code).toBe('mfa_factor_name_conflict')
  })

  it('takes null options as left out, as the platform reads them (issuer: null, friendlyName: null)', async () => {
    const { supabase, email } = await signedIn('mfa-nulls')
    // An app passing its unset options through as null: supabase-js sends them so.
    const nulls = { factorType: 'totp', friendlyName: null, issuer: null } as unknown as { factorType: 'totp' }
    const enrolled = await supabase.auth.mfa.enroll(nulls)
    expect(enrolled.error).toBeNull()
    expect(enrolled.data!.type).toBe('totp')
    // No issuer given: the default one (the site's host), as without the field.
    expect(enrolled.data!.totp.uri).toContain(`/localhost:3000:${email}?`)
    expect(enrolled.data!.totp.uri).toContain('issuer=localhost%3A3000')
    const challenge = await supabase.auth.mfa.challenge({ factorId: enrolled.data!.id, channel: null } as unknown as { factorId: string })
    expect(challenge.error).toBeNull()
  })

  it('the admin lists and deletes a user’s factors', async () => {
    const { supabase, id } = await signedIn('mfa-admin')
    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'to remove' })
    expect(enrolled.error).toBeNull()
    const admin = serviceClient()
    const listed = await admin.auth.admin.mfa.listFactors({ userId: id })
    expect(listed.error).toBeNull()
    expect(listed.data!.factors.map((f) => f.id)).toEqual([enrolled.data!.id])
    const deleted = await admin.auth.admin.mfa.deleteFactor({ userId: id, id: enrolled.data!.id })
    expect(deleted.error).toBeNull()
    // supabase-js wraps this body once more ({ data: { data: factor } }); the removed factor is in it.
    expect(JSON.stringify(deleted.data)).toContain(enrolled.data!.id)
    expect((await supabase.auth.mfa.listFactors()).data!.all).toEqual([])
    // Not for users.
    const asUser = await supabase.auth.admin.mfa.listFactors({ userId: id })
    expect(asUser.error?.code).toBe('not_admin')
  })
})

describe('row-level security on aal', () => {
  beforeAll(async () => {
    await sql(`
      create table public.mfa_secrets (id int primary key, body text not null);
      alter table public.mfa_secrets enable row level security;
      create policy "aal2 only" on public.mfa_secrets for select to authenticated
        using ((auth.jwt() ->> 'aal') = 'aal2');
      grant select on public.mfa_secrets to authenticated;
      insert into public.mfa_secrets values (1, 'behind a second factor');
      notify pgrst, 'reload schema';
    `)
  })

  it('a policy on auth.jwt()->>aal hides rows from aal1 and shows them at aal2', async () => {
    const { supabase } = await signedIn('mfa-rls')
    let aal1: { data: unknown; error: unknown } = { data: null, error: 'not yet' }
    for (let i = 0; i < 100 && aal1.error; i++) {
      aal1 = await supabase.from('mfa_secrets').select('id, body')
      if (aal1.error) await new Promise((r) => setTimeout(r, 100))
    }
    expect(aal1.error).toBeNull()
    expect(aal1.data).toEqual([])

    const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' })
    const verified = await supabase.auth.mfa.challengeAndVerify({
      factorId: enrolled.data!.id,
      code: totp(enrolled.data!.totp.secret),
    })
    expect(verified.error).toBeNull()
    const aal2 = await supabase.from('mfa_secrets').select('id, body')
    expect(aal2.error).toBeNull()
    expect(aal2.data).toEqual([{ id: 1, body: 'behind a second factor' }])
  })
})
