// The fake client's `auth.mfa`: TOTP factors per user and the session's
// assurance level, answering as GoTrue does through supabase-js (its error
// codes and messages). A code is right when it equals `FakeMfa.code`; the
// level of the signed-in session is aal1 until a factor is verified in it
// (or a test calls `elevate`). A new sign-in makes a new session, at aal1.
import { vi } from 'vitest'

export interface FakeFactor {
  id: string
  friendly_name: string
  factor_type: 'totp'
  status: 'verified' | 'unverified'
  created_at: string
  updated_at: string
}

/** What the fake needs of its owner: the signed-in session (an object per sign-in) and event delivery. */
export interface MfaHost {
  session: { user: { id: string; factors?: FakeFactor[] } } | null
  emit: (event: string) => void
}

interface FakeAuthError {
  message: string
  code: string
  status: number
}

/** The secret every enrolment shows (base32), and its `otpauth` URI. */
export const FAKE_TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP'
/** The QR code's SVG (with a `#` colour, as SVG writers often use). */
export const FAKE_QR_SVG = '<svg xmlns="http://www.w3.org/2000/svg"><rect width="9" height="9" fill="#000"/></svg>'

export class FakeMfa {
  /** The one right code. */
  code = '123456'
  /** Every call, in order, as `name` (and its parameters). */
  calls: Array<{ name: string; params?: unknown }> = []
  private factors = new Map<string, FakeFactor[]>()
  private elevated = new WeakSet<object>()
  private challenges = new Map<string, string>()
  private serial = 0

  constructor(private host: MfaHost) {}

  /** Seeds a user's factors (copied). */
  seed(userId: string, factors: FakeFactor[]) {
    this.factors.set(userId, structuredClone(factors))
  }

  factorsOf(userId: string): FakeFactor[] {
    return this.factors.get(userId) ?? []
  }

  /** A verified TOTP factor, to seed with. */
  static verified(id = 'factor-1', friendlyName = 'Authenticator app'): FakeFactor {
    return {
      id,
      friendly_name: friendlyName,
      factor_type: 'totp',
      status: 'verified',
      created_at: '2024-05-01T10:00:00Z',
      updated_at: '2024-05-01T10:00:00Z',
    }
  }

  /** Raises the signed-in session to aal2, as a verified challenge does. */
  elevate() {
    if (this.host.session) this.elevated.add(this.host.session)
  }

  get level(): 'aal1' | 'aal2' | null {
    if (!this.host.session) return null
    return this.elevated.has(this.host.session) ? 'aal2' : 'aal1'
  }

  private fail(message: string, code: string, status: number): { data: null; error: FakeAuthError } {
    return { data: null, error: { message, code, status } }
  }

  private missing() {
    return this.fail('Auth session missing!', 'session_not_found', 401)
  }

  /** The session's user's factors, kept on the session's user too (as GoTrue's user object carries them). */
  private mine(): FakeFactor[] | null {
    const session = this.host.session
    if (!session) return null
    const list = this.factors.get(session.user.id) ?? []
    this.factors.set(session.user.id, list)
    session.user.factors = list
    return list
  }

  private verifyCode(factorId: string, challengeId: string, code: string) {
    const list = this.mine()
    if (!list) return this.missing()
    const factor = list.find((f) => f.id === factorId)
    if (!factor) return this.fail(`Factor not found`, 'mfa_factor_not_found', 404)
    if (this.challenges.get(challengeId) !== factorId)
      return this.fail('MFA factor with the provided challenge ID not found', 'mfa_challenge_expired', 422)
    this.challenges.delete(challengeId)
    if (code !== this.code) return this.fail('Invalid TOTP code entered', 'mfa_verification_failed', 422)
    factor.status = 'verified'
    this.elevate()
    this.host.emit('MFA_CHALLENGE_VERIFIED')
    return { data: { access_token: 'aal2-token', token_type: 'bearer', expires_in: 3600, refresh_token: 'r', user: this.host.session?.user }, error: null }
  }

  private challengeFor(factorId: string) {
    const list = this.mine()
    if (!list) return this.missing()
    if (!list.some((f) => f.id === factorId)) return this.fail('Factor not found', 'mfa_factor_not_found', 404)
    const id = `challenge-${++this.serial}`
    this.challenges.set(id, factorId)
    return { data: { id, type: 'totp' as const, expires_at: Math.floor(Date.now() / 1000) + 300 }, error: null }
  }

  api = {
    enroll: vi.fn(async (params: { factorType: string; friendlyName?: string }) => {
      this.calls.push({ name: 'enroll', params })
      const list = this.mine()
      if (!list) return this.missing()
      const name = params.friendlyName ?? ''
      if (list.some((f) => f.friendly_name === name))
        return this.fail(`A factor with the friendly name "${name}" for this user already exists`, 'mfa_factor_name_conflict', 422)
      const now = new Date().toISOString()
      const factor: FakeFactor = {
        id: `factor-new-${++this.serial}`,
        friendly_name: name,
        factor_type: 'totp',
        status: 'unverified',
        created_at: now,
        updated_at: now,
      }
      list.push(factor)
      const uri = `otpauth://totp/localhost:user?issuer=localhost&secret=${FAKE_TOTP_SECRET}`
      return {
        data: {
          id: factor.id,
          type: 'totp' as const,
          friendly_name: name,
          totp: { qr_code: `data:image/svg+xml;utf-8,${FAKE_QR_SVG}`, secret: FAKE_TOTP_SECRET, uri },
        },
        error: null,
      }
    }),
    challenge: vi.fn(async (params: { factorId: string }) => {
      this.calls.push({ name: 'challenge', params })
      return this.challengeFor(params.factorId)
    }),
    verify: vi.fn(async (params: { factorId: string; challengeId: string; code: string }) => {
      this.calls.push({ name: 'verify', params })
      return this.verifyCode(params.factorId, params.challengeId, params.code)
    }),
    challengeAndVerify: vi.fn(async (params: { factorId: string; code: string }) => {
      this.calls.push({ name: 'challengeAndVerify', params })
      const challenge = this.challengeFor(params.factorId)
      if (challenge.error) return challenge
      return this.verifyCode(params.factorId, challenge.data.id, params.code)
    }),
    unenroll: vi.fn(async (params: { factorId: string }) => {
      this.calls.push({ name: 'unenroll', params })
      const list = this.mine()
      if (!list) return this.missing()
      const at = list.findIndex((f) => f.id === params.factorId)
      if (at < 0) return this.fail('Factor not found', 'mfa_factor_not_found', 404)
      if (list[at].status === 'verified' && this.level !== 'aal2')
        return this.fail('AAL2 required to unenroll verified factor', 'insufficient_aal', 422)
      list.splice(at, 1)
      return { data: { id: params.factorId }, error: null }
    }),
    listFactors: vi.fn(async () => {
      this.calls.push({ name: 'listFactors' })
      const list = this.mine()
      if (!list) return this.missing()
      const all = structuredClone(list)
      return { data: { all, totp: all.filter((f) => f.status === 'verified'), phone: [], webauthn: [] }, error: null }
    }),
    getAuthenticatorAssuranceLevel: vi.fn(async () => {
      this.calls.push({ name: 'getAuthenticatorAssuranceLevel' })
      const list = this.mine()
      if (!list) return { data: { currentLevel: null, nextLevel: null, currentAuthenticationMethods: [] }, error: null }
      const current = this.level
      const next = list.some((f) => f.status === 'verified') ? 'aal2' : current
      return { data: { currentLevel: current, nextLevel: next, currentAuthenticationMethods: [] }, error: null }
    }),
  }
}
