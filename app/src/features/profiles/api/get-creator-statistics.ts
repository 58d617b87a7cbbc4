import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { CreatorStatistics } from '@/lib/types'

const zeros = (id: string): CreatorStatistics => ({
  id,
  templates_count: 0,
  total_downloads: 0,
  total_upvotes: 0,
  rating: 0,
  weekly_growth_percentage: 0,
  categories: [],
})

/** The creator_statistics row of a profile, zeros when there is none. */
export async function getCreatorStatistics(id: string): Promise<CreatorStatistics> {
  const { data, error } = await getSupabase().from('creator_statistics').select('*').eq('id', id).maybeSingle()
  if (error) {
    logQuiet('reading creator statistics', error)
    return zeros(id)
  }
  return (data as CreatorStatistics | null) ?? zeros(id)
}

export const creatorStatisticsQueryOptions = (id: string) =>
  queryOptions({ queryKey: ['profiles', 'statistics', id], queryFn: () => getCreatorStatistics(id) })

export function useCreatorStatistics(id: string | undefined) {
  return useQuery({ ...creatorStatisticsQueryOptions(id ?? ''), enabled: !!id })
}
