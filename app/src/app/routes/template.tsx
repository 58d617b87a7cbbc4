import { useParams } from 'react-router'
import { FollowButton } from '@/features/profiles/components/follow-button'
import { TemplateDetailPage } from '@/features/templates/components/template-detail-page'
import { useSession } from '@/lib/session'

export default function TemplateRoute() {
  const { id = '' } = useParams()
  const { user } = useSession()
  // The creator card's Follow is the profile page's button (its toasts and
  // queries): features do not import each other, so it is composed here.
  return (
    <TemplateDetailPage
      key={id}
      id={id}
      follow={(creatorId) => <FollowButton viewerId={user?.id ?? null} profileId={creatorId} />}
    />
  )
}
