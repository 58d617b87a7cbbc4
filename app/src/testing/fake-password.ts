// The fake client's password and e-mail-code auth: resetPasswordForEmail,
// verifyOtp with an e-mail's code, reauthenticate, and a new password through
// updateUser, answering as GoTrue does through supabase-js (its error codes
// and messages). Every auth e-mail carries `FakePasswordAuth.code`; the
// "mailbox" is `mails`.
import { vi } from 'vitest'
import type { FakeUser } from './fake-supabase'
import type { FakeMfa } from './fake-mfa'

export interface PasswordHost {
  users: FakeUser[]
  session: { user: { id: string; email: string } } | null
  mfa: FakeMfa
  sessionFor: (user: FakeUser) => unknown
  emit: (event: string) => void
}

interface FakeAuthError {
  message: string
  code: string
  status: number
}

export interface FakeMail {
  email: string
  type: 'signup' | 'recovery' | 'reauthentication'
  code: string
  redirectTo?: string
}

const fail = (message: string, code: string, status: number): FakeAuthError => ({ message, code, status })

export class FakePasswordAuth {
  /** The code of every auth e-mail. */
  code = '654321'
  mails: FakeMail[] = []
  /** The next reset request answers 429, as the server does for one asked again too soon. */
  rateLimited = false
  /** GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION with a session older than a day. */
  requireReauthentication = false
  /** Accounts signed up and not confirmed yet. */
  private unconfirmed: FakeUser[] = []

  constructor(private host: PasswordHost) {}

  /** A sign-up that needs its address confirmed: the account waits, and the confirmation mail goes out. */
  signedUp(user: FakeUser, redirectTo?: string) {
    this.unconfirmed.push(user)
    this.mails.push({ email: user.email, type: 'signup', code: this.code, redirectTo })
  }

  /** Sets the signed-in user's password; an error as the server answers, or null. */
  setPassword(password: string, nonce?: string): FakeAuthError | null {
    const session = this.host.session
    if (!session) return fail('Auth session missing!', 'session_not_found', 401)
    // A test may start signed in as a user it did not list: the account is theirs all the same.
    let user = this.host.users.find((u) => u.id === session.user.id)
    if (!user) {
      user = { id: session.user.id, email: session.user.email, password: '' }
      this.host.users.push(user)
    }
    const verified = this.host.mfa.factorsOf(user.id).some((f) => f.status === 'verified')
    if (verified && this.host.mfa.level !== 'aal2')
      return fail('AAL2 session is required to update email or password when MFA is enabled.', 'insufficient_aal', 401)
    if (this.requireReauthentication) {
      if (!nonce) return fail('Password update requires reauthentication', 'reauthentication_needed', 400)
      const at = this.mails.findIndex((m) => m.email === user.email && m.type === 'reauthentication' && m.code === nonce)
      if (at < 0) return fail('Nonce has expired or is invalid', 'reauthentication_not_valid', 422)
      this.mails.splice(at, 1)
    }
    if (password.length < 6) return fail('Password should be at least 6 characters.', 'weak_password', 422)
    if (password === user.password) return fail('New password should be different from the old password.', 'same_password', 422)
    user.password = password
    return null
  }

  api = {
    resetPasswordForEmail: vi.fn(async (email: string, options?: { redirectTo?: string }) => {
      if (this.rateLimited) {
        this.rateLimited = false
        return { data: null, error: fail('For security purposes, you can only request this after 60 seconds.', 'over_email_send_rate_limit', 429) }
      }
      // The same answer with or without an account.
      if (this.host.users.some((u) => u.email === email))
        this.mails.push({ email, type: 'recovery', code: this.code, redirectTo: options?.redirectTo })
      return { data: {}, error: null }
    }),
    verifyOtp: vi.fn(async (params: { email: string; token: string; type: string }) => {
      const at = this.mails.findIndex((m) => m.email === params.email && m.type === params.type && m.code === params.token)
      if (at < 0) return { data: { user: null, session: null }, error: fail('Token has expired or is invalid', 'otp_expired', 403) }
      this.mails.splice(at, 1)
      const waiting = this.unconfirmed.findIndex((u) => u.email === params.email)
      if (waiting >= 0) this.host.users.push(...this.unconfirmed.splice(waiting, 1))
      const user = this.host.users.find((u) => u.email === params.email)!
      this.host.session = this.host.sessionFor(user) as PasswordHost['session']
      this.host.emit('SIGNED_IN')
      return { data: { user: this.host.session?.user, session: this.host.session }, error: null }
    }),
    resend: vi.fn(async (params: { type: string; email: string; options?: { emailRedirectTo?: string } }) => {
      if (this.rateLimited) {
        this.rateLimited = false
        return { data: {}, error: fail('For security purposes, you can only request this after 60 seconds.', 'over_email_send_rate_limit', 429) }
      }
      if (params.type === 'signup' && this.unconfirmed.some((u) => u.email === params.email))
        this.mails.push({ email: params.email, type: 'signup', code: this.code, redirectTo: params.options?.emailRedirectTo })
      return { data: {}, error: null }
    }),
    reauthenticate: vi.fn(async () => {
      const session = this.host.session
      if (!session) return { data: { user: null, session: null }, error: fail('Auth session missing!', 'session_not_found', 401) }
      this.mails.push({ email: session.user.email, type: 'reauthentication', code: this.code })
      return { data: { user: null, session: null }, error: null }
    }),
  }
}
