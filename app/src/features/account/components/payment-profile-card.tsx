// Payment Profile (spec sections 2, 4, 7, 8): not connected, then connected
// once the profile has an account id; the server's issue flag shows as a
// warning. The spec's 'alert' messages are shown in an inline alert region
// (role="alert") in this card rather than with window.alert: the same words,
// announced to assistive technology, without blocking the page.
import { useState } from 'react'
import { AlertTriangle, CheckCircle2, CreditCard, Loader2 } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { browser } from '@/lib/browser'
import { useNavMemory } from '@/lib/nav-memory'
import { safeLink } from '@/lib/safe-link'
import { CONNECT_FAILED, MUST_SIGN_IN_TO_CONNECT, useConnectPaymentAccount } from '../api/connect-payment-account'
import type { AccountProfile } from '../api/get-account-profile'
import { UPDATE_FAILED } from '../api/update-payment-account'
import { Card } from '@/components/ui/card'

export function PaymentProfileCard({
  userId,
  profile,
  updating = false,
  updateFailed = false,
}: {
  userId: string | null
  profile: AccountProfile | null
  /** Back from onboarding: the account is being stored. */
  updating?: boolean
  /** Back from onboarding: storing the account failed. */
  updateFailed?: boolean
}) {
  const connect = useConnectPaymentAccount()
  const [signInNeeded, setSignInNeeded] = useState(false)
  const [refused, setRefused] = useState(false)
  const connected = !!profile?.stripe_account_id
  const alert = signInNeeded
    ? MUST_SIGN_IN_TO_CONNECT
    : refused
      ? CONNECT_FAILED
      : connect.isError
        ? connect.error.message || CONNECT_FAILED
        : updateFailed
          ? UPDATE_FAILED
          : null

  const start = () => {
    setSignInNeeded(!userId)
    setRefused(false)
    if (!userId) return
    connect.mutate(userId, {
      onSuccess: (url) => {
        // Only a web link is followed, whatever the server answered.
        const target = safeLink(url)
        if (!target) {
          setRefused(true)
          return
        }
        // Leaving the app: the remembered path must not replace the return
        // URL (with its stripe_account) when the provider sends the user back.
        useNavMemory.getState().clear()
        browser.assign(target)
      },
    })
  }

  return (
    <Card
      title={<><CreditCard className="h-5 w-5 text-brand-700" aria-hidden /> Payment Profile</>}
      description="Connect a Stripe account to receive the earnings of your paid templates. Creators of free templates and customers do not need one."
      action={connected ? <Badge tone="success"><CheckCircle2 className="h-3.5 w-3.5" aria-hidden /> Connected</Badge> : <Badge>Not connected</Badge>}
    >
      {alert && (
        <p role="alert" className="mb-4 flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden /> {alert}
        </p>
      )}
      {updating && (
        <p role="status" className="mb-4 flex items-center gap-2 text-sm text-slate-700">
          <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> Updating your payment account...
        </p>
      )}
      {connected ? (
        <div className="space-y-3">
          <p className="text-sm text-slate-700" data-testid="payment-connected">
            Your Stripe account <span className="font-mono text-slate-900">{profile?.stripe_account_id}</span> is connected.
          </p>
          {profile?.stripe_account_issue && (
            // The spec shows the issue flag as a warning without wording it.
            <p className="flex items-start gap-2 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-900" data-testid="payment-issue">
              <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
              Your payment account needs attention: finish its setup with Stripe to receive payouts.
            </p>
          )}
          <Button variant="outline" onClick={start} disabled={connect.isPending}>
            {connect.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
            {profile?.stripe_account_issue ? 'Finish Stripe setup' : 'Manage Stripe account'}
          </Button>
        </div>
      ) : (
        <Button onClick={start} disabled={connect.isPending}>
          {connect.isPending && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />}
          {connect.isPending ? 'Connecting...' : 'Connect with Stripe'}
        </Button>
      )}
    </Card>
  )
}
