import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { TOP_CREATORS_LIMIT } from '@/config/constants'
import type { TrendingCreator } from '@/lib/types'

/** RPC get_trending_creators; a failure is logged and thrown (the section's retry state, issue 24). */
export async function getTrendingCreators(): Promise<TrendingCreator[]> {
  const { data, error } = await getSupabase().rpc('get_trending_creators', { limit_count: TOP_CREATORS_LIMIT })
  if (error) {
    logQuiet('reading trending creators', error)
    throw error
  }
  return (data ?? []) as TrendingCreator[]
}

export const trendingCreatorsQueryOptions = () =>
  queryOptions({ queryKey: ['creators', 'trending'], queryFn: getTrendingCreators })

export function useTrendingCreators() {
  return useQuery(trendingCreatorsQueryOptions())
}
