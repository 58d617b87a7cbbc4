// Settings → Two-factor authentication: the authenticator apps (TOTP
// factors) of the signed-in user, adding one (QR code and secret from the
// server, confirmed with a code) and removing one (a verified factor needs an
// aal2 session: at aal1 a code is asked for first).
import { useId, useState, type FormEvent } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import type { Factor } from '@supabase/supabase-js'
import { KeyRound, ShieldCheck, Trash2 } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Dialog } from '@/components/ui/dialog'
import { LoadError, Skeleton } from '@/components/ui/feedback'
import { Input, Label } from '@/components/ui/field'
import { formatDate } from '@/lib/format'
import { logQuiet } from '@/lib/log'
import { errorText, toastError, toastSuccess } from '@/lib/toast'
import { factorsQueryKey, useFactors } from '../api/get-factors'
import { useEnrollTotp, type TotpEnrolment } from '../api/enroll-totp'
import { sessionIsAal2 } from '../api/get-assurance-level'
import { unenrollFactor, useUnenrollFactor } from '../api/unenroll-factor'
import { CodeField } from './code-field'
import { useCodeEntry } from './use-code-entry'

const DEFAULT_NAME = 'Authenticator app'

export function TwoFactorSection({ userId }: { userId: string }) {
  const headingId = useId()
  const factors = useFactors(userId)
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: factorsQueryKey(userId) })
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null)
  const [removing, setRemoving] = useState<{ factor: Factor; needsCode: boolean } | null>(null)
  const enroll = useEnrollTotp()
  const [name, setName] = useState(DEFAULT_NAME)
  const [checking, setChecking] = useState(false)
  const verified = factors.data?.verified ?? []

  const start = async (e: FormEvent) => {
    e.preventDefault()
    try {
      setEnrolment(await enroll.mutateAsync(name.trim() || DEFAULT_NAME))
    } catch (error) {
      toastError(errorText(error, 'Failed to set up the authenticator app. Please try again.'))
    } finally {
      void refresh()
    }
  }

  const askRemove = async (factor: Factor) => {
    setChecking(true)
    try {
      setRemoving({ factor, needsCode: !(await sessionIsAal2()) })
    } catch (error) {
      toastError(errorText(error, 'An unexpected error occurred. Please try again.'))
    } finally {
      setChecking(false)
    }
  }

  return (
    <section aria-labelledby={headingId} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
      <h2 id={headingId} className="flex items-center gap-2 text-lg font-semibold text-slate-900">
        <ShieldCheck className="h-5 w-5 text-brand-600" aria-hidden /> Two-factor authentication
      </h2>
      <p className="mt-1 text-sm text-slate-600">
        Ask for a code from an authenticator app each time you sign in.
      </p>
      <div className="mt-4 space-y-4">
        {factors.isLoading ? (
          <Skeleton className="h-16 w-full" />
        ) : factors.isError && !factors.data ? (
          <LoadError compact title="We couldn't load your authenticator apps" />
        ) : (
          <>
            <p className="text-sm font-medium text-slate-800" data-testid="mfa-status">
              {verified.length ? 'Two-factor authentication is on.' : 'Two-factor authentication is off.'}
            </p>
            {verified.length > 0 && (
              <ul aria-label="Authenticator apps" className="divide-y divide-slate-200 rounded-xl border border-slate-200">
                {verified.map((factor) => (
                  <li key={factor.id} className="flex flex-wrap items-center justify-between gap-3 p-3">
                    <div className="flex min-w-0 items-center gap-3">
                      <KeyRound className="h-5 w-5 shrink-0 text-slate-500" aria-hidden />
                      <div className="min-w-0">
                        <p className="truncate font-medium text-slate-900">{factor.friendly_name || DEFAULT_NAME}</p>
                        <p className="text-xs text-slate-500">Added {formatDate(factor.created_at)}</p>
                      </div>
                    </div>
                    <Button
                      variant="dangerGhost"
                      size="sm"
                      aria-label={`Remove ${factor.friendly_name || DEFAULT_NAME}`}
                      disabled={checking}
                      onClick={() => void askRemove(factor)}
                    >
                      <Trash2 className="h-4 w-4" aria-hidden /> Remove
                    </Button>
                  </li>
                ))}
              </ul>
            )}
            {enrolment ? (
              <EnrolmentPanel
                enrolment={enrolment}
                onDone={() => {
                  setEnrolment(null)
                  setName(DEFAULT_NAME)
                  void refresh()
                }}
              />
            ) : (
              <form onSubmit={start} noValidate className="flex flex-col gap-3 sm:flex-row sm:items-end">
                <div className="flex-1">
                  <Label htmlFor="mfa-factor-name">Authenticator name</Label>
                  <Input
                    id="mfa-factor-name"
                    value={name}
                    maxLength={60}
                    onChange={(e) => setName(e.target.value)}
                    disabled={enroll.isPending}
                  />
                </div>
                <Button type="submit" disabled={enroll.isPending}>
                  {enroll.isPending ? 'Setting up...' : 'Set up authenticator app'}
                </Button>
              </form>
            )}
          </>
        )}
      </div>
      {removing && (
        <RemoveDialog
          factor={removing.factor}
          needsCode={removing.needsCode}
          onClose={() => setRemoving(null)}
          onRemoved={() => {
            setRemoving(null)
            void refresh()
          }}
        />
      )}
    </section>
  )
}

/** The QR code and secret of a started enrolment, and the code that confirms it. */
function EnrolmentPanel({ enrolment, onDone }: { enrolment: TotpEnrolment; onDone: () => void }) {
  const entry = useCodeEntry({ fallback: 'An unexpected error occurred. Please try again.' })
  const [cancelling, setCancelling] = useState(false)

  const confirm = async (e: FormEvent) => {
    e.preventDefault()
    if (!(await entry.verify(enrolment.factorId))) return
    toastSuccess('Two-factor authentication enabled', 'You will be asked for a code from your authenticator app when you sign in.')
    onDone()
  }

  const cancel = async () => {
    setCancelling(true)
    // The unverified factor is only clutter: a failure to remove it is logged
    // (the next enrolment removes it again).
    try {
      await unenrollFactor(enrolment.factorId)
    } catch (failure) {
      logQuiet('removing an unfinished enrolment', failure)
    }
    setCancelling(false)
    onDone()
  }

  return (
    <div className="rounded-xl border border-brand-200 bg-brand-50/40 p-4" data-testid="mfa-enrolment">
      <p className="font-medium text-slate-900">Scan this QR code with your authenticator app</p>
      <div className="mt-3 flex flex-col gap-4 sm:flex-row sm:items-start">
        <img
          src={enrolment.qrCode}
          alt="QR code for your authenticator app"
          width={176}
          height={176}
          className="h-44 w-44 shrink-0 rounded-lg border border-slate-200 bg-white p-2"
        />
        <div className="min-w-0 space-y-2 text-sm text-slate-700">
          <p>Can't scan it? Enter this secret key in the app instead:</p>
          <p>
            <code
              aria-label="Secret key"
              data-testid="mfa-secret"
              className="block break-all rounded-md bg-white px-2 py-1.5 font-mono text-sm text-slate-900 ring-1 ring-slate-200"
            >
              {enrolment.secret}
            </code>
          </p>
          <p>Then enter the 6-digit code the app shows.</p>
        </div>
      </div>
      <form onSubmit={confirm} noValidate className="mt-4 space-y-3">
        <CodeField
          id="mfa-enroll-code"
          {...entry.field}
          disabled={entry.pending || cancelling}
        />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={entry.pending || cancelling}>
            {entry.pending ? 'Verifying...' : 'Verify and enable'}
          </Button>
          <Button variant="outline" onClick={() => void cancel()} disabled={entry.pending || cancelling}>
            Cancel
          </Button>
        </div>
      </form>
    </div>
  )
}

/**
 * Removing a verified factor: a plain confirmation at aal2; at aal1 a code
 * from the app first raises the session (the server refuses otherwise).
 */
function RemoveDialog({
  factor,
  needsCode,
  onClose,
  onRemoved,
}: {
  factor: Factor
  needsCode: boolean
  onClose: () => void
  onRemoved: () => void
}) {
  const entry = useCodeEntry({ fallback: 'An unexpected error occurred. Please try again.' })
  const unenroll = useUnenrollFactor()
  const busy = entry.pending || unenroll.isPending
  const label = factor.friendly_name || DEFAULT_NAME

  const remove = async (e: FormEvent) => {
    e.preventDefault()
    if (needsCode && !(await entry.verify(factor.id))) return
    try {
      await unenroll.mutateAsync(factor.id)
      toastSuccess('Authenticator app removed', 'Two-factor authentication no longer uses it.')
      onRemoved()
    } catch (failure) {
      toastError(errorText(failure, 'An unexpected error occurred. Please try again.'))
    }
  }

  return (
    <Dialog
      open
      onOpenChange={(open) => !open && !busy && onClose()}
      title={`Remove ${label}?`}
      description={
        needsCode
          ? 'Enter a code from your authenticator app to confirm it is you.'
          : 'You will no longer be asked for a code from it when you sign in.'
      }
    >
      <form onSubmit={remove} noValidate className="space-y-4">
        {needsCode && (
          <CodeField
            id="mfa-remove-code"
            {...entry.field}
            disabled={busy}
            autoFocus
          />
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" disabled={busy}>
            {busy ? 'Removing...' : needsCode ? 'Verify and remove' : 'Remove'}
          </Button>
        </div>
      </form>
    </Dialog>
  )
}
