// The dashboard's home (spec section 2, Dashboard → Home): setup cards while
// the profile is incomplete, notices for drafts, pending and rejected
// templates, the Template Status Overview and the Engagement Statistics.
import { useEffect, type ComponentType, type ReactNode } from 'react'
import { Link } from 'react-router'
import {
  AlertTriangle,
  ArrowRight,
  AtSign,
  Clock,
  Download,
  Eye,
  FileEdit,
  Heart,
  LayoutGrid,
  Star,
  ThumbsUp,
  UserRound,
  CheckCircle2,
  XCircle,
} from 'lucide-react'
import { LoadError, Skeleton } from '@/components/ui/feedback'
import { cn, count, formatCount, formatRating } from '@/lib/format'
import { toastError } from '@/lib/toast'
import { personName, type ProfileSummary } from '@/lib/types'
import { useStatusCounts, type StatusCounts } from '../api/get-status-counts'
import { useEngagement } from '../api/get-engagement'
import type { TemplateKind } from '../model'

type Icon = ComponentType<{ className?: string; 'aria-hidden'?: boolean }>

function SetupCard({ icon: Icon, title, text }: { icon: Icon; title: string; text: string }) {
  return (
    <div className="flex items-start gap-4 rounded-2xl border border-brand-200 bg-brand-50 p-5">
      <span className="flex h-10 w-10 shrink-0 items-center justify-center rounded-full bg-white text-brand-700">
        <Icon className="h-5 w-5" aria-hidden />
      </span>
      <div className="min-w-0 flex-1">
        <h2 className="font-semibold text-slate-900">{title}</h2>
        <p className="mt-1 text-sm text-slate-700">{text}</p>
        <Link
          to="/dashboard/profile"
          className="mt-3 inline-flex items-center gap-1 text-sm font-semibold text-brand-700 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        >
          {title} <ArrowRight className="h-4 w-4" aria-hidden />
        </Link>
      </div>
    </div>
  )
}

const NOTICE_TONES = {
  draft: 'border-slate-200 bg-white',
  pending: 'border-amber-200 bg-amber-50',
  rejected: 'border-red-200 bg-red-50',
}

function Notice({ kind, icon: Icon, title, text, link }: { kind: keyof typeof NOTICE_TONES; icon: Icon; title: string; text: string; link: string }) {
  return (
    <div className={cn('flex flex-col gap-3 rounded-2xl border p-4 sm:flex-row sm:items-center', NOTICE_TONES[kind])} data-testid={`notice-${kind}`}>
      <Icon className="hidden h-6 w-6 shrink-0 text-slate-700 sm:block" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-semibold text-slate-900">{title}</p>
        <p className="text-sm text-slate-700">{text}</p>
      </div>
      <Link
        to={`/dashboard/templates?tab=${kind}`}
        className="inline-flex shrink-0 items-center gap-1 self-start text-sm font-semibold text-brand-700 hover:underline focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 sm:self-center"
      >
        {link} <ArrowRight className="h-4 w-4" aria-hidden />
      </Link>
    </div>
  )
}

/** The notices for the counts above zero, pluralised. */
export function notices(counts: StatusCounts): Array<{ kind: 'draft' | 'pending' | 'rejected'; title: string; text: string; link: string }> {
  const out = []
  if (counts.draft > 0)
    out.push({
      kind: 'draft' as const,
      title: `${count(counts.draft, 'draft')} in progress`,
      text: `You have ${count(counts.draft, 'unfinished template')}. Finish editing and submit ${counts.draft === 1 ? 'it' : 'them'} for review when ready.`,
      link: 'View drafts',
    })
  if (counts.pending > 0)
    out.push({
      kind: 'pending' as const,
      title: 'Pending review',
      text: `You have ${count(counts.pending, 'template')} waiting for review. Our team will get back to you soon!`,
      link: 'View pending',
    })
  if (counts.rejected > 0)
    out.push({
      kind: 'rejected' as const,
      title: `${count(counts.rejected, 'template')} ${counts.rejected === 1 ? 'needs' : 'need'} changes`,
      text: 'Review the feedback and make improvements to resubmit.',
      link: 'View rejected',
    })
  return out
}

const NOTICE_ICONS: Record<'draft' | 'pending' | 'rejected', Icon> = { draft: FileEdit, pending: Clock, rejected: AlertTriangle }

function Stat({ icon: Icon, label, value, testId, loading, to }: { icon: Icon; label: string; value: string; testId: string; loading: boolean; to?: string }) {
  const body: ReactNode = (
    <>
      <span className="flex items-center gap-2 text-sm text-slate-600">
        <Icon className="h-4 w-4 shrink-0" aria-hidden /> {label}
      </span>
      {loading ? (
        <Skeleton className="mt-2 h-7 w-14" />
      ) : (
        <span className="mt-1 block text-2xl font-bold text-slate-900" data-testid={testId}>
          {value}
        </span>
      )}
    </>
  )
  const box = 'block h-full rounded-2xl border border-slate-200 bg-white p-4'
  return (
    <li>
      {to ? (
        <Link to={to} className={cn(box, 'transition hover:border-brand-300 hover:shadow-sm focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500')}>
          {body}
        </Link>
      ) : (
        <div className={box}>{body}</div>
      )}
    </li>
  )
}

const STATUS_TILES: Array<{ kind: TemplateKind; label: string; icon: Icon }> = [
  { kind: 'draft', label: 'Drafts', icon: FileEdit },
  { kind: 'published', label: 'Published', icon: CheckCircle2 },
  { kind: 'pending', label: 'Pending', icon: Clock },
  { kind: 'rejected', label: 'Rejected', icon: XCircle },
]

/**
 * `profile`: the user's own profile summary, read by the route (undefined
 * while it is read): it names the user and decides the setup cards.
 */
export function DashboardHome({ userId, profile: p, fallbackName }: { userId: string; profile: ProfileSummary | null | undefined; fallbackName: string }) {
  const counts = useStatusCounts(userId)
  const engagement = useEngagement(userId)

  const failed = counts.isError || engagement.isError
  useEffect(() => {
    if (failed) toastError('Failed to load templates. Please try again.')
  }, [failed])

  const needsProfile = !!p && (!p.display_name?.trim() || !p.avatar_url)
  const needsUsername = !!p && !p.username
  const e = engagement.data
  const engagementTiles = [
    { label: 'Upvotes', icon: ThumbsUp, id: 'upvotes', value: formatCount(e?.upvotes) },
    { label: 'Downloads', icon: Download, id: 'downloads', value: formatCount(e?.downloads) },
    { label: 'Views', icon: Eye, id: 'views', value: formatCount(e?.views) },
    { label: 'Favorited', icon: Heart, id: 'favorited', value: formatCount(e?.favorited) },
    { label: 'Avg Rating', icon: Star, id: 'avg-rating', value: formatRating(e?.avgRating) },
    { label: 'Total Templates', icon: LayoutGrid, id: 'total-templates', value: formatCount(e?.totalTemplates) },
  ]

  return (
    <div className="space-y-8">
      <header>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Dashboard</h1>
        <p className="mt-1 text-slate-600">Welcome back, {p ? personName(p) : fallbackName}. Here is how your templates are doing.</p>
      </header>

      {(needsProfile || needsUsername) && (
        <div className="grid gap-4 md:grid-cols-2">
          {needsProfile && (
            <SetupCard icon={UserRound} title="Setup your profile" text="Add a display name and a profile picture so people know who made your templates." />
          )}
          {needsUsername && (
            <SetupCard icon={AtSign} title="Setup your username" text="Choose a username for your public profile link. It cannot be changed once set." />
          )}
        </div>
      )}

      {counts.data && notices(counts.data).length > 0 && (
        <div className="space-y-3" aria-label="Notices" role="region">
          {notices(counts.data).map((n) => (
            <Notice key={n.kind} icon={NOTICE_ICONS[n.kind]} {...n} />
          ))}
        </div>
      )}

      <section aria-labelledby="status-overview-heading">
        <h2 id="status-overview-heading" className="mb-3 text-lg font-semibold text-slate-900">Template Status Overview</h2>
        {counts.isError && !counts.data ? (
          <LoadError compact title="We couldn't load your template counts" />
        ) : (
          <ul className="grid grid-cols-2 gap-3 lg:grid-cols-4">
            {STATUS_TILES.map((t) => (
              <Stat
                key={t.kind}
                icon={t.icon}
                label={t.label}
                value={formatCount(counts.data?.[t.kind])}
                testId={`status-${t.kind}`}
                loading={counts.isLoading}
                to={`/dashboard/templates?tab=${t.kind}`}
              />
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="engagement-heading">
        <h2 id="engagement-heading" className="mb-3 text-lg font-semibold text-slate-900">Engagement Statistics</h2>
        {engagement.isError && !engagement.data ? (
          <LoadError compact title="We couldn't load your statistics" />
        ) : (
          <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 xl:grid-cols-6">
            {engagementTiles.map((t) => (
              <Stat key={t.id} icon={t.icon} label={t.label} value={t.value} testId={`stat-${t.id}`} loading={engagement.isLoading} />
            ))}
          </ul>
        )}
      </section>
    </div>
  )
}
