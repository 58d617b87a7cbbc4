// "Forgot password?": asks for a reset e-mail (resetPasswordForEmail, whose
// link lands on the new-password screen). The answer is the same whether or
// not the address has an account; the server's rate-limit message (429) is
// shown as it says it. The mail also carries a code, which can be entered
// here instead of following the link.
import { useState, type FormEvent } from 'react'
import { MailCheck } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { errorText, toastError } from '@/lib/toast'
import { useRequestPasswordReset } from '../api/request-password-reset'
import { emailError } from '../validation'
import { EmailCodeForm } from './email-code-form'

export const RESET_SENT_TEXT =
  'If an account exists for that address, we sent a link to reset the password. It may take a minute to arrive.'

export function ForgotPasswordForm({
  initialEmail,
  onBack,
  onVerifying,
  onCodeVerified,
}: {
  initialEmail: string
  onBack: () => void
  onVerifying: (verifying: boolean) => void
  onCodeVerified: (email: string) => void | Promise<void>
}) {
  const request = useRequestPasswordReset()
  const [email, setEmail] = useState(initialEmail)
  const [error, setError] = useState<string | null>(null)
  const [sentTo, setSentTo] = useState<string | null>(null)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const invalid = emailError(email)
    setError(invalid)
    if (invalid) return
    const address = email.trim()
    try {
      await request.mutateAsync(address)
      setSentTo(address)
    } catch (failure) {
      // Asked again too soon, too many mails: the server's words.
      const message = errorText(failure, 'An unexpected error occurred')
      setError(message)
      toastError(message)
    }
  }

  if (sentTo) {
    return (
      <div className="space-y-5">
        <div role="status" className="rounded-xl border border-brand-200 bg-brand-50/60 p-4 text-sm text-slate-800">
          <p className="flex items-center gap-2 font-semibold text-slate-900">
            <MailCheck className="h-5 w-5 text-brand-600" aria-hidden /> Check your e-mail
          </p>
          <p className="mt-1">{RESET_SENT_TEXT}</p>
        </div>
        <p className="text-sm text-slate-700">Or enter the 6-digit code from the e-mail sent to {sentTo}:</p>
        <EmailCodeForm
          email={sentTo}
          type="recovery"
          onVerifying={onVerifying}
          onVerified={() => onCodeVerified(sentTo)}
        />
        <div className="flex flex-wrap justify-between gap-2">
          <Button variant="ghost" onClick={() => setSentTo(null)}>
            Send it again
          </Button>
          <Button variant="ghost" onClick={onBack}>
            Back to sign in
          </Button>
        </div>
      </div>
    )
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-4">
      <div>
        <h2 className="text-lg font-semibold text-slate-900">Reset your password</h2>
        <p className="mt-1 text-sm text-slate-600">Enter your account's e-mail and we'll send you a link to set a new password.</p>
      </div>
      <div>
        <Label htmlFor="forgot-email">Email</Label>
        <Input
          id="forgot-email"
          name="email"
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => {
            setEmail(e.target.value)
            if (error) setError(null)
          }}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'forgot-email-error' : undefined}
          disabled={request.isPending}
        />
        <FieldError id="forgot-email-error">{error}</FieldError>
      </div>
      <Button type="submit" className="w-full" size="lg" disabled={request.isPending}>
        {request.isPending ? 'Sending...' : 'Send reset link'}
      </Button>
      <Button variant="ghost" className="w-full" onClick={onBack} disabled={request.isPending}>
        Back to sign in
      </Button>
    </form>
  )
}
