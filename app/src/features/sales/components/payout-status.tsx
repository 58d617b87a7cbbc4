// What the payment provider says of the creator's connected account: can it
// take charges and receive payouts, what it still needs, the balance and the
// recent payouts. Without an account, a link to the payment profile.
import { AlertTriangle, CheckCircle2, Landmark, XCircle } from 'lucide-react'
import type { Money, PayoutStatusResponse } from '@plinth/sdk'
import { Badge } from '@/components/ui/badge'
import { ButtonLink } from '@/components/ui/button'
import { formatDate } from '@/lib/format'
import { formatMoney } from '../model'

/** `individual.verification.document` -> `Individual verification document`. */
export function requirementLabel(requirement: string): string {
  const words = requirement.replace(/[._]+/g, ' ').trim()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

function total(amounts: Money[], currency: string): string {
  if (amounts.length === 0) return formatMoney(0, currency)
  return amounts.map((a) => formatMoney(a.amount, a.currency)).join(' + ')
}

function Flag({ on, yes, no }: { on: boolean; yes: string; no: string }) {
  return on ? (
    <Badge tone="success"><CheckCircle2 className="h-3.5 w-3.5" aria-hidden /> {yes}</Badge>
  ) : (
    <Badge tone="warning"><XCircle className="h-3.5 w-3.5" aria-hidden /> {no}</Badge>
  )
}

export function PayoutStatusDetails({ status, currency }: { status: PayoutStatusResponse; currency: string }) {
  if (!status.connected) {
    return (
      <div className="space-y-3" data-testid="payout-status" data-connected="false">
        <p className="text-sm text-slate-700">
          {status.accountId
            ? 'The payment provider does not know your connected account any more. Connect it again to receive payouts.'
            : 'You have no payment account connected, so the earnings of your paid templates cannot be paid out to you yet.'}
        </p>
        <ButtonLink to="/dashboard/settings" variant="outline" size="sm">
          <Landmark className="h-4 w-4" aria-hidden /> Connect a payment account
        </ButtonLink>
      </div>
    )
  }
  return (
    <div className="space-y-4" data-testid="payout-status" data-connected="true">
      <div className="flex flex-wrap gap-2">
        <Flag on={status.chargesEnabled} yes="Charges enabled" no="Charges disabled" />
        <Flag on={status.payoutsEnabled} yes="Payouts enabled" no="Payouts paused" />
      </div>
      {(status.requirementsDue.length > 0 || status.disabledReason) && (
        <div role="status" className="rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900">
          <p className="flex items-center gap-2 font-medium">
            <AlertTriangle className="h-4 w-4 shrink-0" aria-hidden /> Your payment provider needs more information
          </p>
          {status.requirementsDue.length > 0 && (
            <ul className="mt-2 list-disc space-y-0.5 pl-6">
              {status.requirementsDue.map((r) => (
                <li key={r} className="break-words">{requirementLabel(r)}</li>
              ))}
            </ul>
          )}
          {status.disabledReason && <p className="mt-2 break-words">Reason: {requirementLabel(status.disabledReason)}</p>}
          <ButtonLink to="/dashboard/settings" variant="outline" size="sm" className="mt-3">Update your payment account</ButtonLink>
        </div>
      )}
      <dl className="grid grid-cols-2 gap-3">
        <div className="rounded-lg bg-slate-50 p-3">
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Available</dt>
          <dd className="mt-1 break-words text-lg font-semibold tabular-nums text-slate-900" data-testid="balance-available">{total(status.available, currency)}</dd>
        </div>
        <div className="rounded-lg bg-slate-50 p-3">
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Pending</dt>
          <dd className="mt-1 break-words text-lg font-semibold tabular-nums text-slate-900" data-testid="balance-pending">{total(status.pending, currency)}</dd>
        </div>
      </dl>
      <div>
        <h3 className="text-sm font-semibold text-slate-900">Recent payouts</h3>
        {status.payouts.length === 0 ? (
          <p className="mt-1 text-sm text-slate-600">No payouts yet.</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100 text-sm" data-testid="payouts">
            {status.payouts.map((p) => (
              <li key={p.id} className="flex flex-wrap items-center justify-between gap-2 py-2">
                <span className="tabular-nums font-medium text-slate-900">{formatMoney(p.amount, p.currency)}</span>
                <span className="text-slate-600">
                  {p.status === 'paid' ? 'Arrived' : 'Arrives'} {formatDate(new Date(p.arrivalDate * 1000).toISOString())}
                </span>
                <Badge tone={p.status === 'paid' ? 'success' : p.status === 'failed' || p.status === 'canceled' ? 'warning' : 'neutral'}>
                  {p.status.replace(/_/g, ' ')}
                </Badge>
              </li>
            ))}
          </ul>
        )}
      </div>
      {status.provider === 'simulated' && (
        <p className="text-xs text-slate-500">
          Payments on this server are simulated: no money moves. A sale's share stays pending for 7 days.
        </p>
      )}
    </div>
  )
}
