// /dashboard/templates/edit/:templateId: edit one of the user's published templates.
import { useParams } from 'react-router'
import { useSession } from '@/lib/session'
import { EditTemplate } from '@/features/dashboard/components/edit-template'

export default function DashboardEditTemplateRoute() {
  const { templateId = '' } = useParams()
  const { user } = useSession()
  // The dashboard is behind RequireAuth: there is always a user here.
  if (!user) return null
  return <EditTemplate templateId={templateId} userId={user.id} />
}
