// /dashboard/settings (spec section 2, Dashboard → Settings): the payment
// profile (with the return from onboarding), the locked crypto payouts
// teaser, order history, two-factor authentication, the password and
// account settings.
import { useEffect } from 'react'
import { useSession } from '@/lib/session'
import { toastError } from '@/lib/toast'
import { useAccountProfile } from '@/features/account/api/get-account-profile'
import { ScreenHeading } from '@/features/account/components/section'
import { PaymentProfileCard } from '@/features/account/components/payment-profile-card'
import { usePaymentAccountReturn } from '@/features/account/hooks/use-payment-account-return'
import { CryptoPaymentsTeaser } from '@/features/account/components/crypto-payments-teaser'
import { OrderHistoryCard } from '@/features/account/components/order-history-card'
import { AccountSettingsCard } from '@/features/account/components/account-settings-card'
import { ChangePasswordSection } from '@/features/account/components/change-password-section'
import { TwoFactorSection } from '@/features/mfa/components/two-factor-section'
import { CodePrompt } from '@/features/mfa/components/code-prompt'
import { LoadError, Skeleton } from '@/components/ui/feedback'

export default function DashboardSettingsRoute() {
  const { user } = useSession()
  const profile = useAccountProfile(user?.id)
  // Started at once, before the profile is read: the return parameter is taken on arrival.
  const returned = usePaymentAccountReturn(user?.id ?? '')

  useEffect(() => {
    if (profile.isError) toastError('Failed to load profile data. Please try again.')
  }, [profile.isError])

  return (
    <div className="mx-auto max-w-3xl">
      <ScreenHeading title="Settings" subtitle="Payments, orders and your account." />
      <div className="space-y-6">
        {profile.isLoading ? (
          <Skeleton className="h-40 w-full" />
        ) : profile.isError && !profile.data ? (
          // Unread is not "not connected": no Connect button on a guess.
          <LoadError compact title="We couldn't load your payment profile" />
        ) : (
          <PaymentProfileCard
            userId={user?.id ?? null}
            profile={profile.data ?? null}
            updating={returned.isPending}
            updateFailed={returned.isError}
          />
        )}
        <CryptoPaymentsTeaser />
        <OrderHistoryCard />
        {user && <TwoFactorSection userId={user.id} />}
        {user && (
          <ChangePasswordSection
            secondFactor={(step) => (
              <CodePrompt userId={user.id} submitLabel="Verify and update" onVerified={step.onVerified} onCancel={step.onCancel} />
            )}
          />
        )}
        <AccountSettingsCard />
      </div>
    </div>
  )
}
