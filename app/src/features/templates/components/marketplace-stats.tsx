import { Download, LayoutGrid, Users } from 'lucide-react'
import { formatCount } from '@/lib/format'
import { useMarketplaceStats } from '../api/get-marketplace-stats'

export function MarketplaceStats() {
  const { data, isLoading } = useMarketplaceStats()
  const items = [
    { label: 'Total Templates', value: data?.totalTemplates, icon: LayoutGrid },
    { label: 'Active Creators', value: data?.activeCreators, icon: Users },
    { label: 'Total Downloads', value: data?.totalDownloads, icon: Download },
  ]
  return (
    <dl className="grid gap-4 sm:grid-cols-3">
      {items.map(({ label, value, icon: Icon }) => (
        <div key={label} className="flex items-center gap-4 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <span className="flex h-11 w-11 items-center justify-center rounded-xl bg-brand-50 text-brand-700">
            <Icon className="h-5 w-5" aria-hidden />
          </span>
          <div>
            <dt className="text-sm text-slate-600">{label}</dt>
            <dd className="text-2xl font-bold text-slate-900">
              {isLoading ? <span className="inline-block h-7 w-16 animate-pulse rounded bg-slate-200" /> : formatCount(value ?? 0)}
            </dd>
          </div>
        </div>
      ))}
    </dl>
  )
}
