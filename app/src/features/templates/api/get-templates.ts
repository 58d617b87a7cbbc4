// The Discover listing: published templates filtered by category, price and
// search text, in one of five orders. 'most-popular' keeps only templates with
// at least MOST_POPULAR_MIN_UPVOTES upvotes.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { MOST_POPULAR_MIN_UPVOTES } from '@/config/constants'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

export const SORTS = ['newest', 'oldest', 'most-popular', 'price-low', 'price-high'] as const
export type Sort = (typeof SORTS)[number]
export const PRICES = ['all', 'free', 'paid'] as const
export type PriceFilter = (typeof PRICES)[number]

export interface TemplateFilters {
  search: string
  /** A category id, or 'all'. */
  categoryId: string
  price: PriceFilter
  sort: Sort
}

/** Characters that would break the `or=(…)` filter grammar are dropped from search text. */
export function searchPattern(search: string): string | null {
  const cleaned = search.replace(/[,()"\\%*]/g, ' ').trim()
  return cleaned ? `%${cleaned}%` : null
}

/** The ids of templates with at least the threshold of upvotes, most upvoted first. */
export async function getPopularTemplateIds(): Promise<string[]> {
  const { data, error } = await getSupabase()
    .from('template_upvote_counts')
    .select('template_id, upvote_count')
    .gte('upvote_count', MOST_POPULAR_MIN_UPVOTES)
    .order('upvote_count', { ascending: false })
  if (error) throw error
  return ((data ?? []) as Array<{ template_id: string }>).map((r) => r.template_id)
}

export async function getTemplates(filters: TemplateFilters): Promise<Template[]> {
  let query = getSupabase().from('templates').select(TEMPLATE_LIST_COLUMNS).eq('is_published', true)
  if (filters.categoryId && filters.categoryId !== 'all') query = query.eq('category_id', filters.categoryId)
  if (filters.price === 'free') query = query.eq('price', 0)
  if (filters.price === 'paid') query = query.gt('price', 0)
  const pattern = searchPattern(filters.search)
  if (pattern) query = query.or(`title.ilike.${pattern},description.ilike.${pattern}`)
  switch (filters.sort) {
    case 'oldest':
      query = query.order('created_at', { ascending: true })
      break
    case 'price-low':
      query = query.order('price', { ascending: true })
      break
    case 'price-high':
      query = query.order('price', { ascending: false })
      break
    case 'most-popular': {
      const ids = await getPopularTemplateIds()
      if (ids.length === 0) return []
      // Not re-ordered by count (spec): the most downloaded first.
      query = query.in('id', ids).order('downloads_count', { ascending: false })
      break
    }
    default:
      query = query.order('created_at', { ascending: false })
  }
  const { data, error } = await query
  if (error) throw error
  return enrichTemplates((data ?? []) as unknown as TemplateRow[])
}

export const templatesQueryOptions = (filters: TemplateFilters) =>
  queryOptions({
    queryKey: ['templates', 'list', filters],
    queryFn: () => getTemplates(filters),
  })

export function useTemplates(filters: TemplateFilters, enabled = true) {
  return useQuery({ ...templatesQueryOptions(filters), enabled })
}
