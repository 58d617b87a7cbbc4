// Home statistics: published templates, active creators, downloads. Active
// creators are the profiles with at least one published template (the view
// creator_listing), not every account (issue 44, low: buyers were counted).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface MarketplaceStats {
  totalTemplates: number
  activeCreators: number
  totalDownloads: number
}

export async function getMarketplaceStats(): Promise<MarketplaceStats> {
  const supabase = getSupabase()
  const [templates, profiles, downloads] = await Promise.all([
    supabase.from('templates').select('id', { count: 'exact', head: true }).eq('is_published', true),
    supabase.from('creator_listing').select('id', { count: 'exact', head: true }),
    supabase.from('templates').select('downloads_count').eq('is_published', true),
  ])
  for (const r of [templates, profiles, downloads]) if (r.error) logQuiet('reading statistics', r.error)
  // One failed count reads as 0 (quiet, spec section 8); none read at all is
  // the server out of reach: an error, so the row does not claim zeros.
  if (templates.error && profiles.error && downloads.error) throw templates.error
  return {
    totalTemplates: templates.count ?? 0,
    activeCreators: profiles.count ?? 0,
    totalDownloads: ((downloads.data ?? []) as Array<{ downloads_count: number }>).reduce(
      (sum, r) => sum + (Number(r.downloads_count) || 0),
      0,
    ),
  }
}

export const marketplaceStatsQueryOptions = () =>
  queryOptions({ queryKey: ['templates', 'stats'], queryFn: getMarketplaceStats })

export function useMarketplaceStats() {
  return useQuery(marketplaceStatsQueryOptions())
}
