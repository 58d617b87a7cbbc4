// Settings → Account Settings → Change password: a new password and its
// confirmation, set with auth.updateUser. What the server asks for besides
// is asked for inline: the second factor's code when the account has a
// verified factor and the session is at aal1 (the composing screen gives the
// code step, `secondFactor`, from the MFA feature), or the code
// auth.reauthenticate() e-mails when the server requires reauthentication.
import { useState, type FormEvent, type ReactNode } from 'react'
import { KeyRound } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { NewPasswordFields } from '@/components/new-password-fields'
import { authErrorCode, needsSecondFactor, validateNewPassword, type NewPasswordErrors, type NewPasswordValues } from '@/lib/password-rules'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { sendReauthenticationCode, useChangePassword } from '../api/change-password'
import { Card } from '@/components/ui/card'

export interface SecondFactorStep {
  /** The code was verified: the session is at aal2. */
  onVerified: () => void
  onCancel: () => void
}

const empty: NewPasswordValues = { password: '', confirm: '' }

export function ChangePasswordSection({ secondFactor }: { secondFactor: (step: SecondFactorStep) => ReactNode }) {
  const change = useChangePassword()
  const [values, setValues] = useState<NewPasswordValues>(empty)
  const [errors, setErrors] = useState<NewPasswordErrors>({})
  const [step, setStep] = useState<'form' | 'second-factor' | 'nonce'>('form')
  const [nonce, setNonce] = useState('')
  const [nonceError, setNonceError] = useState<string | null>(null)
  const [sending, setSending] = useState(false)
  const busy = change.isPending || sending

  const done = () => {
    toastSuccess('Password updated', 'Use your new password the next time you sign in.')
    setValues(empty)
    setNonce('')
    setStep('form')
  }

  const askNonce = async () => {
    setSending(true)
    try {
      await sendReauthenticationCode()
      setStep('nonce')
    } catch (failure) {
      toastError(errorText(failure, 'An unexpected error occurred'))
    } finally {
      setSending(false)
    }
  }

  /** Sends the change; answers whether it went through (otherwise the next step is shown). */
  const send = async (withNonce?: string) => {
    try {
      await change.mutateAsync({ password: values.password, nonce: withNonce })
    } catch (failure) {
      if (needsSecondFactor(failure)) {
        setStep('second-factor')
        return
      }
      if (authErrorCode(failure) === 'reauthentication_needed') {
        await askNonce()
        return
      }
      const message = errorText(failure, 'An unexpected error occurred')
      if (withNonce) setNonceError(message)
      else {
        // Too short for the server, the same as the old one: its own words.
        setErrors({ password: message })
        setStep('form')
      }
      toastError(message)
      return
    }
    done()
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const found = validateNewPassword(values)
    setErrors(found)
    if (Object.keys(found).length) return
    await send()
  }

  const submitNonce = async (e: FormEvent) => {
    e.preventDefault()
    if (!nonce.trim()) {
      setNonceError('Code is required')
      return
    }
    await send(nonce)
  }

  return (
    <Card
      title={
        <>
          <KeyRound className="h-5 w-5 text-brand-600" aria-hidden /> Change password
        </>
      }
      description="Choose a new password for signing in with your e-mail."
    >
      {step === 'second-factor' ? (
        <div>
          <p className="mb-3 text-sm text-slate-700">
            Your account uses two-factor authentication: enter a code from your authenticator app to change the password.
          </p>
          {secondFactor({
            onVerified: () => void send(),
            onCancel: () => setStep('form'),
          })}
        </div>
      ) : step === 'nonce' ? (
        <form onSubmit={submitNonce} noValidate className="space-y-3" aria-label="Confirm it is you">
          <p className="text-sm text-slate-700">We e-mailed you a code to confirm it is you. Enter it to change the password.</p>
          <div>
            <Label htmlFor="reauth-code">Code from the e-mail</Label>
            <Input
              id="reauth-code"
              value={nonce}
              onChange={(e) => {
                setNonce(e.target.value)
                if (nonceError) setNonceError(null)
              }}
              inputMode="numeric"
              autoComplete="one-time-code"
              className="max-w-48 font-mono tracking-widest"
              aria-invalid={nonceError ? true : undefined}
              aria-describedby={nonceError ? 'reauth-code-error' : undefined}
              disabled={busy}
            />
            <FieldError id="reauth-code-error">{nonceError}</FieldError>
          </div>
          <div className="flex flex-wrap gap-2">
            <Button type="submit" disabled={busy}>
              {change.isPending ? 'Saving...' : 'Confirm and update'}
            </Button>
            <Button variant="outline" onClick={() => setStep('form')} disabled={busy}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <form onSubmit={submit} noValidate className="space-y-4">
          <NewPasswordFields
            idPrefix="settings-password"
            values={values}
            errors={errors}
            disabled={busy}
            onChange={(field, value) => {
              setValues((v) => ({ ...v, [field]: value }))
              if (errors[field]) setErrors((er) => ({ ...er, [field]: undefined }))
            }}
          />
          <Button type="submit" disabled={busy}>
            {busy ? 'Saving...' : 'Update password'}
          </Button>
        </form>
      )}
    </Card>
  )
}
