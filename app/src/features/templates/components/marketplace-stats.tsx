import { Download, LayoutGrid, Users } from 'lucide-react'
import { formatCount } from '@/lib/format'
import { useMarketplaceStats } from '../api/get-marketplace-stats'

export function MarketplaceStats() {
  const { data, isLoading, isError } = useMarketplaceStats()
  // Unread (the server out of reach): a dash, not a zero; the sections below offer "Try again".
  const unread = isError && !data
  const items = [
    { label: 'Total Templates', value: data?.totalTemplates, icon: LayoutGrid },
    { label: 'Active Creators', value: data?.activeCreators, icon: Users },
    { label: 'Total Downloads', value: data?.totalDownloads, icon: Download },
  ]
  return (
    <dl className="grid gap-4 sm:grid-cols-3">
      {items.map(({ label, value, icon: Icon }) => (
        // dt and dd are the group's own children (a valid <dl>); the icon sits in the dt, drawn at the card's left.
        <div key={label} className="relative rounded-2xl border border-slate-200 bg-white p-5 pl-20 shadow-sm">
          <dt className="text-sm text-slate-600">
            <span className="absolute left-5 top-1/2 flex h-11 w-11 -translate-y-1/2 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
              <Icon className="h-5 w-5" aria-hidden />
            </span>
            {label}
          </dt>
          <dd className="text-2xl font-bold text-slate-900" data-testid={`home-stat-${label.toLowerCase().replace(/ /g, '-')}`}>
            {isLoading ? (
              <span className="inline-block h-7 w-16 animate-pulse rounded bg-slate-200" />
            ) : unread ? (
              <>
                <span aria-hidden>—</span>
                <span className="sr-only">Not available</span>
              </>
            ) : (
              formatCount(value ?? 0)
            )}
          </dd>
        </div>
      ))}
    </dl>
  )
}
