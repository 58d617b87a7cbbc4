import { Link } from 'react-router'
import { Crown, RefreshCw } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Badge } from '@/components/ui/badge'
import { Button, ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError, Skeleton } from '@/components/ui/feedback'
import { SectionHeading } from '@/components/ui/layout'
import { CREATOR_CATEGORIES_SHOWN } from '@/config/constants'
import { formatCompact, formatRating } from '@/lib/format'
import { personName, profilePath, type TrendingCreator } from '@/lib/types'
import { useTrendingCreators } from '../api/get-trending-creators'

function TopCreatorCard({ creator }: { creator: TrendingCreator }) {
  const name = personName(creator)
  const growth = Number(creator.weekly_growth_percentage) || 0
  return (
    <article className="relative flex flex-col items-center rounded-2xl border border-slate-200 bg-white p-6 text-center shadow-sm focus-within:ring-2 focus-within:ring-brand-500">
      {creator.rank === 1 && (
        <span className="absolute right-4 top-4 text-amber-500" title="Top creator">
          <Crown className="h-6 w-6" aria-label="Top creator" />
        </span>
      )}
      <Avatar url={creator.avatar_url} name={name} size="lg" />
      <h3 className="mt-3 font-semibold text-slate-900">
        <Link to={profilePath(creator)} className="after:absolute after:inset-0 focus-visible:outline-none">
          {name}
        </Link>
      </h3>
      {creator.username && <p className="text-sm text-slate-600">@{creator.username}</p>}
      <div className="mt-2 flex flex-wrap justify-center gap-1">
        {(creator.categories ?? []).slice(0, CREATOR_CATEGORIES_SHOWN).map((c) => (
          <Badge key={c} tone="brand">
            {c}
          </Badge>
        ))}
      </div>
      <dl className="mt-4 grid w-full grid-cols-3 gap-2 text-sm">
        <div>
          <dt className="text-slate-600">Templates</dt>
          <dd className="font-semibold text-slate-900">{creator.templates_count}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Downloads</dt>
          <dd className="font-semibold text-slate-900">{formatCompact(creator.total_downloads)}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Rating</dt>
          {/* An unrated creator says so instead of "0.0" (issue 44, low). */}
          <dd className="font-semibold text-slate-900">{Number(creator.rating) > 0 ? formatRating(creator.rating) : 'No ratings yet'}</dd>
        </div>
      </dl>
      {growth > 0 && <p className="mt-3 text-xs font-medium text-emerald-700">+{growth}% this week</p>}
    </article>
  )
}

export function TopCreators() {
  const { data, isLoading, isError, isFetching, refetch } = useTrendingCreators()
  return (
    <section aria-labelledby="top-creators-heading">
      <SectionHeading
        id="top-creators-heading"
        title="Top Creators"
        subtitle="The makers whose templates are rising this week."
        action={
          <div className="flex gap-2">
            <Button variant="ghost" onClick={() => void refetch()} disabled={isFetching}>
              <RefreshCw className={isFetching ? 'h-4 w-4 animate-spin' : 'h-4 w-4'} aria-hidden /> Refresh
            </Button>
            <ButtonLink to="/creators" variant="outline">
              View All Creators
            </ButtonLink>
          </div>
        }
      />
      {isLoading ? (
        <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {[0, 1, 2, 3].map((i) => (
            <Skeleton key={i} className="h-64" />
          ))}
        </div>
      ) : isError && !data ? (
        <LoadError compact title="We couldn't load the top creators" />
      ) : !data || data.length === 0 ? (
        <EmptyState title="No creators available yet" description="Be the first to share your templates!" />
      ) : (
        <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
          {data.map((c) => (
            <li key={c.id}>
              <TopCreatorCard creator={c} />
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
