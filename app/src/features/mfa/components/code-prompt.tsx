// A code from the authenticator app, asked for in place (e.g. before a
// password change): verifies it for the user's first verified factor, which
// raises the session to aal2, then hands back to the screen that asked.
import { useState, type FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { LoadError, Spinner } from '@/components/ui/feedback'
import { isUnreached } from '@/lib/errors'
import { errorText, toastError } from '@/lib/toast'
import { useFactors } from '../api/get-factors'
import { useVerifyCode } from '../api/verify-code'
import { codeError, factorLabel } from '../validation'
import { CodeField } from './code-field'

export function CodePrompt({
  userId,
  submitLabel = 'Verify',
  onVerified,
  onCancel,
}: {
  userId: string
  submitLabel?: string
  onVerified: () => void
  onCancel?: () => void
}) {
  const factors = useFactors(userId)
  const verify = useVerifyCode()
  const [code, setCode] = useState('')
  const [error, setError] = useState<string | null>(null)
  const factor = factors.data?.verified[0] ?? null

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!factor) return
    const invalid = codeError(code)
    setError(invalid)
    if (invalid) return
    try {
      await verify.mutateAsync({ factorId: factor.id, code })
    } catch (failure) {
      const message = errorText(failure, 'An unexpected error occurred')
      setError(message)
      if (!isUnreached(failure)) setCode('')
      toastError(message)
      return
    }
    onVerified()
  }

  if (factors.isLoading) return <Spinner label="Loading..." className="py-4" />
  if (factors.isError && !factors.data) return <LoadError compact title="We couldn't load your authenticator apps" />
  if (!factor)
    return (
      <p role="alert" className="text-sm text-red-700">
        No authenticator app is set up for this account.
      </p>
    )
  return (
    <form onSubmit={submit} noValidate className="space-y-3" aria-label="Two-factor code">
      <CodeField
        id="mfa-prompt-code"
        value={code}
        error={error}
        disabled={verify.isPending}
        autoFocus
        onChange={(value) => {
          setCode(value)
          if (error) setError(null)
        }}
      />
      <p className="text-xs text-slate-600">{factorLabel(factor.friendly_name)}</p>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={verify.isPending}>
          {verify.isPending ? 'Verifying...' : submitLabel}
        </Button>
        {onCancel && (
          <Button variant="outline" onClick={onCancel} disabled={verify.isPending}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  )
}
