// Two-factor accounts through the unmodified supabase-js (items 2 and 7 of
// the second security review): a password alone (an aal1 session) does not
// change a two-factor account's password or e-mail, and wrong TOTP codes
// lock the factor, whatever the session or client. On a node of the suite's
// own, so that its MFA calls spend no other suite's per-address budget.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClient, type SupabaseClient } from '@supabase/supabase-js'
import ws from 'ws'
import { uniqueEmail } from '../support/context'
import { type OwnPlinth, startOwnPlinth } from '../support/own-plinth'
import { totp } from '../support/totp'

const PASSWORD = 'a-two-factor-password'

let node: OwnPlinth

beforeAll(async () => {
  node = await startOwnPlinth({
    ENABLE_EMAIL_AUTOCONFIRM: 'true',
    // (the per-address limit is not what these tests are about)
    GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY: '1000',
  })
}, 120_000)

afterAll(async () => {
  await node?.stop()
})

function client(): SupabaseClient {
  return createClient(node.url, node.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    // (Node 20 has no WebSocket of its own)
    realtime: { transport: ws as unknown as typeof WebSocket },
  })
}

async function signedIn(email: string, password = PASSWORD): Promise<SupabaseClient> {
  const supabase = client()
  const { error } = await supabase.auth.signInWithPassword({ email, password })
  expect(error).toBeNull()
  return supabase
}

/** A user with a verified TOTP factor: their e-mail, the factor and its secret. */
async function twoFactorUser(): Promise<{ email: string; factorId: string; secret: string }> {
  const email = uniqueEmail('two-factor')
  const supabase = client()
  expect((await supabase.auth.signUp({ email, password: PASSWORD })).error).toBeNull()
  const enrolled = await supabase.auth.mfa.enroll({ factorType: 'totp' })
  expect(enrolled.error).toBeNull()
  const factorId = enrolled.data!.id
  const secret = enrolled.data!.totp.secret
  const verified = await supabase.auth.mfa.challengeAndVerify({ factorId, code: totp(secret) })
  expect(verified.error).toBeNull()
  return { email, factorId, secret }
}

describe('two-factor accounts', () => {
  it('review 2 item 2: an aal1 session cannot change the password or e-mail', async () => {
    const { email, factorId, secret } = await twoFactorUser()
    const aal1 = await signedIn(email)
    const level = await aal1.auth.mfa.getAuthenticatorAssuranceLevel()
    expect(level.data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' })
    for (const attributes of [{ password: 'taken-over-password' }, { email: uniqueEmail('attacker') }]) {
      const { error } = await aal1.auth.updateUser(attributes)
      expect(error?.status).toBe(401)
      expect(error?.code).toBe('insufficient_aal')
      expect(error?.message).toBe('AAL2 session is required to update email or password when MFA is enabled.')
    }
    // Nothing changed: the old password still signs in.
    await signedIn(email)
    // With the second factor, the owner may.
    const verified = await aal1.auth.mfa.challengeAndVerify({ factorId, code: totp(secret, Date.now() / 1000 + 30) })
    expect(verified.error).toBeNull()
    expect((await aal1.auth.updateUser({ password: 'the-owners-new-password' })).error).toBeNull()
    await signedIn(email, 'the-owners-new-password')
  })

  it('review 2 item 7: past five wrong codes the factor is locked, even for the right code', async () => {
    const { email, factorId, secret } = await twoFactorUser()
    const right = totp(secret, Date.now() / 1000 + 30)
    const wrong = right === '000000' ? '111111' : '000000'
    const statuses: number[] = []
    // Two sessions, as an attacker who signed in twice.
    for (const supabase of [await signedIn(email), await signedIn(email)]) {
      const challenge = await supabase.auth.mfa.challenge({ factorId })
      expect(challenge.error).toBeNull()
      for (let i = 0; i < 3; i++) {
        const { error } = await supabase.auth.mfa.verify({ factorId, challengeId: challenge.data!.id, code: wrong })
        statuses.push(error!.status!)
      }
    }
    expect(statuses).toEqual([422, 422, 422, 422, 422, 429])
    const owner = await signedIn(email)
    const { error } = await owner.auth.mfa.challengeAndVerify({ factorId, code: right })
    expect(error?.status).toBe(429)
    expect(error?.code).toBe('over_request_rate_limit')
  })
})
