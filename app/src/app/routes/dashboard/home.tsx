// /dashboard: the dashboard's home (spec section 2, Dashboard → Home).
import { useSession } from '@/lib/session'
import { DashboardHome } from '@/features/dashboard/components/dashboard-home'

export default function DashboardHomeRoute() {
  const { user } = useSession()
  // The dashboard is behind RequireAuth: there is always a user here.
  if (!user) return null
  const metaName = typeof user.user_metadata?.display_name === 'string' ? user.user_metadata.display_name.trim() : ''
  return <DashboardHome userId={user.id} fallbackName={metaName || user.email || 'creator'} />
}
