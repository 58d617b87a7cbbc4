import { UserCheck, UserPlus } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { toastError } from '@/lib/toast'
import { useIsFollowing } from '../api/is-following'
import { useToggleFollow } from '../api/toggle-follow'

export function FollowButton({ viewerId, profileId }: { viewerId: string | null; profileId: string }) {
  const following = useIsFollowing(viewerId ?? undefined, profileId)
  const toggle = useToggleFollow(viewerId ?? '', profileId)
  const now = !!following.data
  return (
    <Button
      variant={now ? 'outline' : 'primary'}
      aria-pressed={now}
      disabled={toggle.isPending}
      onClick={() => {
        if (!viewerId) return toastError('Please sign in to follow creators', 'Authentication Required')
        toggle.mutate(now)
      }}
    >
      {now ? <UserCheck className="h-4 w-4" aria-hidden /> : <UserPlus className="h-4 w-4" aria-hidden />}
      {now ? 'Following' : 'Follow'}
    </Button>
  )
}
