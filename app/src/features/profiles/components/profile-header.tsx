import type { ReactNode } from 'react'
import { AtSign, CalendarDays, Camera, Globe, PlayCircle } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { formatCount, formatDate } from '@/lib/format'
import { personName, type Profile } from '@/lib/types'
import { useFollowCounts } from '../api/get-follow-counts'
import { FollowButton } from './follow-button'

// twitter is shown under the network's new name; github as a video-network link (spec section 3).
const SOCIAL = [
  { key: 'website', label: 'Website', icon: Globe },
  { key: 'twitter', label: 'X', icon: AtSign },
  { key: 'instagram', label: 'Instagram', icon: Camera },
  { key: 'github', label: 'YouTube', icon: PlayCircle },
] as const

function safeHref(url: string | undefined): string | null {
  if (!url) return null
  try {
    const u = new URL(url)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null
  } catch {
    return null
  }
}

/**
 * `ownerAvatar` and `ownerBio`: the owner's editors of their avatar and bio
 * (the route composes them), shown instead of the avatar and the bio when the
 * viewer is the profile's owner.
 */
export function ProfileHeader({
  profile,
  viewerId,
  ownerAvatar,
  ownerBio,
}: {
  profile: Profile
  viewerId: string | null
  ownerAvatar: ReactNode
  ownerBio: ReactNode
}) {
  const owner = viewerId === profile.id
  const counts = useFollowCounts(profile.id)
  const name = personName(profile)
  const links = SOCIAL.map((s) => ({ ...s, href: safeHref(profile.social_links?.[s.key]) })).filter((s) => s.href)
  // Templates and downloads are the creator statistics' (one place, issue 44, low).
  const stats = [
    { label: 'Followers', value: counts.data?.followers ?? 0 },
    { label: 'Following', value: counts.data?.following ?? 0 },
  ]
  return (
    <section className="overflow-hidden rounded-3xl border border-slate-200 bg-white shadow-sm">
      <div className="h-28 bg-gradient-to-r from-brand-500 via-indigo-500 to-violet-500 sm:h-36" />
      <div className="px-6 pb-6 sm:px-8">
        <div className="-mt-14 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          {owner ? ownerAvatar : <Avatar url={profile.avatar_url} name={name} size="xl" className="ring-4" />}
          {!owner && <FollowButton viewerId={viewerId} profileId={profile.id} />}
        </div>
        <h1 className="mt-4 text-2xl font-bold text-slate-900 sm:text-3xl">{name}</h1>
        {profile.username && <p className="text-slate-600">@{profile.username}</p>}
        <div className="mt-3 max-w-2xl">
          {owner ? ownerBio : profile.bio && <p className="whitespace-pre-line text-slate-700">{profile.bio}</p>}
        </div>
        <div className="mt-4 flex flex-wrap items-center gap-x-5 gap-y-2 text-sm text-slate-600">
          <span className="flex items-center gap-1.5"><CalendarDays className="h-4 w-4" aria-hidden /> Joined {formatDate(profile.created_at)}</span>
          {links.map(({ key, label, icon: Icon, href }) => (
            <a key={key} href={href!} target="_blank" rel="noopener noreferrer nofollow" className="flex items-center gap-1.5 rounded hover:text-brand-700">
              <Icon className="h-4 w-4" aria-hidden /> {label}
            </a>
          ))}
        </div>
        <dl className="mt-6 grid max-w-md grid-cols-2 gap-3">
          {stats.map((s) => (
            <div key={s.label} className="rounded-xl bg-slate-50 px-4 py-3">
              <dt className="text-sm text-slate-600">{s.label}</dt>
              <dd className="text-xl font-bold text-slate-900" data-testid={`stat-${s.label.toLowerCase()}`}>{formatCount(s.value)}</dd>
            </div>
          ))}
        </dl>
      </div>
    </section>
  )
}
