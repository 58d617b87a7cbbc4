import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Category } from '@/lib/types'

/** Every category, ordered by name. */
export async function getCategories(): Promise<Category[]> {
  const { data, error } = await getSupabase().from('categories').select('id, name, slug, description').order('name')
  if (error) throw error
  return (data ?? []) as Category[]
}

export const categoriesQueryOptions = () =>
  queryOptions({ queryKey: ['categories', 'list'], queryFn: getCategories, staleTime: 5 * 60_000 })

export function useCategories() {
  return useQuery(categoriesQueryOptions())
}
