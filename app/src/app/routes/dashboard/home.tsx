// /dashboard: the dashboard's home (spec section 2, Dashboard → Home), with
// the user's own profile (the setup cards, the welcome name).
import { useSession } from '@/lib/session'
import { useOwnProfile } from '@/features/profiles/api/get-own-profile'
import { DashboardHome } from '@/features/dashboard/components/dashboard-home'

export default function DashboardHomeRoute() {
  const { user } = useSession()
  const profile = useOwnProfile(user?.id)
  // The dashboard is behind RequireAuth: there is always a user here.
  if (!user) return null
  const metaName = typeof user.user_metadata?.display_name === 'string' ? user.user_metadata.display_name.trim() : ''
  return <DashboardHome userId={user.id} profile={profile.data} fallbackName={metaName || user.email || 'creator'} />
}
