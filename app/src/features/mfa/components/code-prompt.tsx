// A code from the authenticator app, asked for in place (e.g. before a
// password change): verifies it for the user's first verified factor, which
// raises the session to aal2, then hands back to the screen that asked.
import type { FormEvent } from 'react'
import { Button } from '@/components/ui/button'
import { LoadError, Spinner } from '@/components/ui/feedback'
import { useFactors } from '../api/get-factors'
import { factorLabel } from '../validation'
import { CodeField } from './code-field'
import { useCodeEntry } from './use-code-entry'

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
  const entry = useCodeEntry({ fallback: 'An unexpected error occurred', clearRefused: true })
  const factor = factors.data?.verified[0] ?? null

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (factor && (await entry.verify(factor.id))) onVerified()
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
        {...entry.field}
        disabled={entry.pending}
        autoFocus
      />
      <p className="text-xs text-slate-600">{factorLabel(factor.friendly_name)}</p>
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={entry.pending}>
          {entry.pending ? 'Verifying...' : submitLabel}
        </Button>
        {onCancel && (
          <Button variant="outline" onClick={onCancel} disabled={entry.pending}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  )
}
