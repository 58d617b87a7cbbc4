import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** The number of published templates per category id. */
export async function getCategoryCounts(): Promise<Record<string, number>> {
  const { data, error } = await getSupabase().from('templates').select('category_id').eq('is_published', true)
  if (error) throw error
  const counts: Record<string, number> = {}
  for (const row of (data ?? []) as Array<{ category_id: string | null }>) {
    if (row.category_id) counts[row.category_id] = (counts[row.category_id] ?? 0) + 1
  }
  return counts
}

export const categoryCountsQueryOptions = () =>
  queryOptions({ queryKey: ['categories', 'counts'], queryFn: getCategoryCounts })

export function useCategoryCounts() {
  return useQuery(categoryCountsQueryOptions())
}
