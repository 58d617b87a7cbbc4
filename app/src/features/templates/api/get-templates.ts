// The Discover listing: published templates filtered by category, price and
// search text, in one of five orders, a page at a time (lib/paging.ts). 'most-popular' keeps only templates with
// at least MOST_POPULAR_MIN_UPVOTES upvotes.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { MOST_POPULAR_MIN_UPVOTES } from '@/config/constants'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'
import { fetchPage, type Paged } from '@/lib/paging'

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

/**
 * One page of the Discover listing and the number of templates it pages
 * through (an exact count). `.order('id')` last keeps equal keys in one
 * order, so no template shows on two pages or on none.
 */
export async function getTemplates(filters: TemplateFilters, page = 1): Promise<Paged<Template>> {
  let popular: string[] | null = null
  if (filters.sort === 'most-popular') {
    popular = await getPopularTemplateIds()
    if (popular.length === 0) return { items: [], total: 0 }
  }
  const build = (columns: string, head: boolean) => {
    let query = getSupabase().from('templates').select(columns, { count: 'exact', head }).eq('is_published', true)
    if (filters.categoryId && filters.categoryId !== 'all') query = query.eq('category_id', filters.categoryId)
    if (filters.price === 'free') query = query.eq('price', 0)
    if (filters.price === 'paid') query = query.gt('price', 0)
    const pattern = searchPattern(filters.search)
    if (pattern) query = query.or(`title.ilike.${pattern},description.ilike.${pattern}`)
    if (popular) query = query.in('id', popular)
    return query
  }
  const order = (query: ReturnType<typeof build>) => {
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
      case 'most-popular':
        // Not re-ordered by count (spec): the most downloaded first.
        query = query.order('downloads_count', { ascending: false })
        break
      default:
        query = query.order('created_at', { ascending: false })
    }
    return query.order('id', { ascending: true })
  }
  const { items, total } = await fetchPage(build, TEMPLATE_LIST_COLUMNS, order, page)
  return { items: await enrichTemplates(items as TemplateRow[]), total }
}

export const templatesQueryOptions = (filters: TemplateFilters, page = 1) =>
  queryOptions({
    queryKey: ['templates', 'list', filters, { page }],
    queryFn: () => getTemplates(filters, page),
  })

export function useTemplates(filters: TemplateFilters, page = 1, enabled = true) {
  return useQuery({ ...templatesQueryOptions(filters, page), enabled })
}
