// Sign-in, second step: a session that owes its second factor (aal1 with a
// verified TOTP factor) is not signed in until a code from the authenticator
// app raises it to aal2. A wrong code shows the server's message; the right
// one goes where the sign-in was going. Signing out leaves the half-made
// session behind.
import { useState, type FormEvent } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { ShieldCheck, Smartphone } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { LoadError, Spinner } from '@/components/ui/feedback'
import { takeReturnPath } from '@/lib/nav-memory'
import { refreshAssurance, signOut, useSession } from '@/lib/session'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { useFactors } from '../api/get-factors'
import { factorLabel } from '../validation'
import { CodeField } from './code-field'
import { useCodeEntry } from './use-code-entry'

export function SecondFactorScreen() {
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const { session } = useSession()
  const factors = useFactors(session?.user.id)
  const entry = useCodeEntry({ fallback: 'An unexpected error occurred', clearRefused: true })
  const [leaving, setLeaving] = useState(false)
  const factor = factors.data?.verified[0] ?? null
  const busy = entry.pending || leaving

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!factor || !(await entry.verify(factor.id))) return
    try {
      if (await refreshAssurance()) return
    } catch (failure) {
      toastError(errorText(failure, 'An unexpected error occurred'))
      return
    }
    toastSuccess('Welcome back!', "You've been signed in successfully.")
    navigate(takeReturnPath(params.get('redirect')), { replace: true })
  }

  const leave = async () => {
    setLeaving(true)
    try {
      await signOut()
    } catch (failure) {
      toastError(errorText(failure, 'An unexpected error occurred'))
    } finally {
      setLeaving(false)
    }
  }

  return (
    <div className="flex min-h-[calc(100vh-4rem)] items-center justify-center bg-gradient-to-b from-brand-50 to-slate-50 px-4 py-12">
      <div className="w-full max-w-md rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <div className="mb-6 text-center">
          <span className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-xl bg-brand-600 text-white">
            <ShieldCheck className="h-6 w-6" aria-hidden />
          </span>
          <h1 className="text-2xl font-bold text-slate-900">Two-factor authentication</h1>
          <p className="mt-1 text-sm text-slate-600">
            Enter the 6-digit code from your authenticator app to finish signing in.
          </p>
        </div>
        {factors.isLoading ? (
          <Spinner label="Loading..." className="py-6" />
        ) : factors.isError && !factors.data ? (
          <LoadError compact title="We couldn't load your authenticator apps" />
        ) : !factor ? (
          <p role="alert" className="text-sm text-red-700">
            No authenticator app is set up for this account.
          </p>
        ) : (
          <form onSubmit={submit} noValidate className="space-y-4">
            <CodeField
              id="mfa-sign-in-code"
              {...entry.field}
              disabled={busy}
              autoFocus
            />
            <p className="flex items-center gap-1.5 text-xs text-slate-600" data-testid="mfa-factor-name">
              <Smartphone className="h-3.5 w-3.5" aria-hidden /> {factorLabel(factor.friendly_name)}
            </p>
            <Button type="submit" className="w-full" size="lg" disabled={busy}>
              {entry.pending ? 'Verifying...' : 'Verify'}
            </Button>
          </form>
        )}
        <Button variant="ghost" className="mt-3 w-full" onClick={() => void leave()} disabled={busy}>
          {leaving ? 'Signing out...' : 'Sign out'}
        </Button>
      </div>
    </div>
  )
}
