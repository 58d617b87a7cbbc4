// "Enter the code from your e-mail": the six-digit code an auth e-mail
// carries besides its link (the confirmation mail after sign-up, the
// password-reset mail), proved with auth.verifyOtp for `email`.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { FieldError, Input, Label } from '@/components/ui/field'
import { isUnreached } from '@/lib/errors'
import { errorText, toastError } from '@/lib/toast'
import { useVerifyEmailCode } from '../api/verify-email-code'
import { emailCodeError } from '../validation'

export function EmailCodeForm({
  email,
  type,
  onVerifying,
  onVerified,
}: {
  email: string
  type: 'signup' | 'recovery'
  /** Called as the code is sent (true) and when it was refused (false). */
  onVerifying?: (verifying: boolean) => void
  onVerified: () => void | Promise<void>
}) {
  const verify = useVerifyEmailCode()
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)
  const id = `email-code-${type}`

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    const invalid = emailCodeError(code)
    setError(invalid)
    if (invalid) return
    onVerifying?.(true)
    try {
      await verify.mutateAsync({ email, code, type })
    } catch (failure) {
      onVerifying?.(false)
      const message = errorText(failure, 'An unexpected error occurred')
      setError(message)
      if (!isUnreached(failure)) setCode('')
      toastError(message)
      return
    }
    await onVerified()
  }

  return (
    <form onSubmit={submit} noValidate className="space-y-3" aria-label="Enter the code from your e-mail">
      <div>
        <Label htmlFor={id}>Code from the e-mail</Label>
        <Input
          id={id}
          name="code"
          value={code}
          onChange={(e) => {
            setCode(e.target.value)
            if (error) setError(null)
          }}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={8}
          placeholder="123456"
          className="max-w-48 font-mono tracking-widest"
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          disabled={verify.isPending}
        />
        <FieldError id={`${id}-error`}>{error}</FieldError>
      </div>
      <Button type="submit" variant="outline" className="w-full" disabled={verify.isPending}>
        {verify.isPending ? 'Verifying...' : 'Verify code'}
      </Button>
    </form>
  )
}
