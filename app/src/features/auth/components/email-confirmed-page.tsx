// Where the sign-up confirmation link (and the confirmation code) lands: the
// link signs the new account in, and this page says the address is
// confirmed. A link that failed comes back without a session (its error is
// shown by the layout as a toast): then it says so.
import { CheckCircle2, MailWarning } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { AuthCard } from './auth-card'

export function EmailConfirmedPage() {
  const { user, loading, mfaPending } = useSession()
  if (loading) return <Spinner label="Loading..." className="py-24" />
  if (!user && !mfaPending) {
    return (
      <AuthCard
        icon={MailWarning}
        title="We couldn't confirm your e-mail"
        subtitle="The confirmation link is invalid or has expired. Sign in to get a new one, or sign up again."
      >
        <ButtonLink to="/auth?mode=sign-in" className="w-full" size="lg">
          Go to sign in
        </ButtonLink>
      </AuthCard>
    )
  }
  return (
    <AuthCard icon={CheckCircle2} title="Email confirmed" subtitle="Your account is ready.">
      <div className="grid gap-3 sm:grid-cols-2">
        <ButtonLink to="/discover" size="lg">
          Browse templates
        </ButtonLink>
        <ButtonLink to="/dashboard" variant="outline" size="lg">
          Go to dashboard
        </ButtonLink>
      </div>
    </AuthCard>
  )
}
