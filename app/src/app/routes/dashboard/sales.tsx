// /dashboard/sales (issue 44 item 8): the signed-in creator's revenue, orders,
// conversion per template and payout status (features/sales).
import { LogIn } from 'lucide-react'
import { ButtonLink } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/feedback'
import { useSession } from '@/lib/session'
import { usePageTitle } from '@/lib/page-title'
import { SalesScreen } from '@/features/sales/components/sales-screen'

export default function DashboardSalesRoute() {
  const { user } = useSession()
  usePageTitle('Sales')
  if (!user) {
    return (
      <EmptyState
        icon={<LogIn className="h-10 w-10" aria-hidden />}
        title="Please Sign In"
        description="Sign in to see your sales."
        action={<ButtonLink to="/auth?mode=sign-in&redirect=%2Fdashboard%2Fsales">Sign In</ButtonLink>}
      />
    )
  }
  return <SalesScreen userId={user.id} />
}
