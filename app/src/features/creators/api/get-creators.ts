// The creators page: profiles with at least one published template (the view
// `creator_listing`, migrations/20261128000100_approval_requires_file.sql),
// with the number of their published templates and those templates'
// downloads; searched, sorted and paged on the server (issue 44, item 4).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { fetchPage, newestFirst, type Paged } from '@/lib/paging'
import type { ProfileSummary } from '@/lib/types'

export interface Creator extends ProfileSummary {
  bio: string | null
  created_at: string
  template_count: number
  total_downloads: number
  is_certified: boolean
}

export const CREATOR_SORTS = ['downloads', 'templates', 'name', 'certified'] as const
export type CreatorSort = (typeof CREATOR_SORTS)[number]

const COLUMNS = 'id, username, display_name, avatar_url, bio, created_at, template_count, total_downloads, is_certified'

/** Characters that would break the `or=(…)` filter grammar are dropped from search text. */
function searchPattern(search: string): string | null {
  const cleaned = search.replace(/[,()"\\%*]/g, ' ').trim()
  return cleaned ? `%${cleaned}%` : null
}

/**
 * One page of creators matching `search` (display name, username or bio), in
 * the order of `sort`, and how many match. Ties fall back to the newest
 * profile first, then the id, so every creator is on exactly one page.
 */
export async function getCreators(search: string, sort: CreatorSort, page = 1): Promise<Paged<Creator>> {
  const build = (columns: string, head: boolean) => {
    let query = getSupabase().from('creator_listing').select(columns, { count: 'exact', head })
    const pattern = searchPattern(search)
    if (pattern) query = query.or(`display_name.ilike.${pattern},username.ilike.${pattern},bio.ilike.${pattern}`)
    return query
  }
  const order = (query: ReturnType<typeof build>) => {
    if (sort === 'downloads') query = query.order('total_downloads', { ascending: false })
    else if (sort === 'templates') query = query.order('template_count', { ascending: false })
    else if (sort === 'name') query = query.order('sort_name', { ascending: true })
    else query = query.order('is_certified', { ascending: false }).order('total_downloads', { ascending: false })
    return newestFirst(query)
  }
  const { items, total } = await fetchPage(build, COLUMNS, order, page)
  return { items: items as Creator[], total }
}

export const creatorsQueryOptions = (search: string, sort: CreatorSort, page = 1) =>
  queryOptions({ queryKey: ['creators', 'list', { search, sort, page }], queryFn: () => getCreators(search, sort, page) })

export function useCreators(search: string, sort: CreatorSort, page = 1) {
  return useQuery(creatorsQueryOptions(search, sort, page))
}
