import { Link } from 'react-router'
import { Loader2, UserMinus } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { EmptyState } from '@/components/ui/feedback'
import { personName, profilePath } from '@/lib/types'
import type { AudienceMember } from '../api/get-audience'
import { relativeTime } from '../relative-time'

export function AudienceList({
  kind,
  members,
  onUnfollow,
  unfollowing,
}: {
  kind: 'followers' | 'following'
  members: AudienceMember[]
  onUnfollow?: (member: AudienceMember) => void
  /** The id being unfollowed now. */
  unfollowing?: string | null
}) {
  if (members.length === 0) {
    // The spec words no empty states for these tabs.
    return kind === 'followers' ? (
      <EmptyState title="No followers yet" description="When people follow you, they will appear here." />
    ) : (
      <EmptyState title="You are not following anyone yet" description="Follow creators from their profiles to see them here." />
    )
  }
  return (
    <ul className="divide-y divide-slate-100 overflow-hidden rounded-2xl border border-slate-200 bg-white">
      {members.map((m) => {
        const name = personName(m)
        return (
          <li key={m.id} className="flex items-center gap-3 p-3 sm:p-4">
            <Link
              to={profilePath(m)}
              className="flex min-w-0 flex-1 items-center gap-3 rounded-lg focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
            >
              <Avatar url={m.avatar_url} name={name} size="md" />
              <span className="min-w-0">
                <span className="block truncate font-medium text-slate-900">{name}</span>
                <span className="block truncate text-sm text-slate-600">
                  {kind === 'followers' ? 'Followed you' : 'Following since'} {relativeTime(m.followed_at)}
                </span>
              </span>
            </Link>
            {kind === 'following' && onUnfollow && (
              <Button
                variant="outline"
                size="sm"
                aria-label={`Unfollow ${name}`}
                disabled={unfollowing === m.id}
                onClick={() => onUnfollow(m)}
              >
                {unfollowing === m.id ? <Loader2 className="h-4 w-4 animate-spin" aria-hidden /> : <UserMinus className="h-4 w-4" aria-hidden />}
                Unfollow
              </Button>
            )}
          </li>
        )
      })}
    </ul>
  )
}
