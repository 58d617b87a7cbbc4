import { TrendingUp } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { formatCount, formatRating } from '@/lib/format'
import type { CreatorStatistics } from '@/lib/types'

/** Shown only when the creator has templates or a rating; weekly growth only when above 0. */
export function CreatorStatsBlock({ stats }: { stats: CreatorStatistics }) {
  const rating = Number(stats.rating) || 0
  const growth = Number(stats.weekly_growth_percentage) || 0
  if (!(stats.templates_count > 0 || rating > 0)) return null
  const items = [
    { label: 'Templates', value: formatCount(stats.templates_count) },
    { label: 'Downloads', value: formatCount(stats.total_downloads) },
    { label: 'Upvotes', value: formatCount(stats.total_upvotes) },
    // An unrated creator says so instead of "0.0" (issue 44, low).
    { label: 'Rating', value: rating > 0 ? `${formatRating(rating)} ★` : 'No ratings yet' },
  ]
  return (
    <section aria-labelledby="creator-stats-heading" className="rounded-2xl border border-slate-200 bg-white p-6">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="creator-stats-heading" className="text-lg font-semibold text-slate-900">Creator statistics</h2>
        {growth > 0 && (
          <span className="inline-flex items-center gap-1 text-sm font-medium text-emerald-700" data-testid="weekly-growth">
            <TrendingUp className="h-4 w-4" aria-hidden /> +{growth}% this week
          </span>
        )}
      </div>
      <dl className="mt-4 grid grid-cols-2 gap-4 sm:grid-cols-4">
        {items.map((i) => (
          <div key={i.label} className="rounded-xl bg-slate-50 p-3">
            <dt className="text-sm text-slate-600">{i.label}</dt>
            <dd className={i.value === 'No ratings yet' ? 'pt-1 text-base font-semibold text-slate-700' : 'text-xl font-bold text-slate-900'} data-testid={`creator-stat-${i.label.toLowerCase()}`}>
              {i.value}
            </dd>
          </div>
        ))}
      </dl>
      {stats.categories.length > 0 && (
        <div className="mt-4 flex flex-wrap gap-1.5">
          {stats.categories.map((c) => <Badge key={c} tone="brand">{c}</Badge>)}
        </div>
      )}
    </section>
  )
}
