// /dashboard/templates?tab=draft|pending|published|rejected: My Templates.
import { useSession } from '@/lib/session'
import { MyTemplates } from '@/features/dashboard/components/my-templates'

export default function DashboardTemplatesRoute() {
  const { user } = useSession()
  // The dashboard is behind RequireAuth: there is always a user here.
  if (!user) return null
  return <MyTemplates userId={user.id} />
}
