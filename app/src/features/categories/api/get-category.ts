import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Category } from '@/lib/types'

/** One category by slug; null when there is none. */
export async function getCategory(slug: string): Promise<Category | null> {
  const { data, error } = await getSupabase()
    .from('categories')
    .select('id, name, slug, description')
    .eq('slug', slug)
    .maybeSingle()
  if (error) throw error
  return (data as Category | null) ?? null
}

export const categoryQueryOptions = (slug: string) =>
  queryOptions({ queryKey: ['categories', 'detail', slug], queryFn: () => getCategory(slug) })

export function useCategory(slug: string) {
  return useQuery(categoryQueryOptions(slug))
}
