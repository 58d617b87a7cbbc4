import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'
import { isRangePastEnd, pageRange, type Paged } from '@/lib/paging'

/**
 * One page of a creator's published templates (is_published and status
 * 'published'), newest first, and their count.
 */
export async function getUserTemplates(userId: string, page = 1): Promise<Paged<Template>> {
  const build = (columns: string, head = false) =>
    getSupabase()
      .from('templates')
      .select(columns, { count: 'exact', head })
      .eq('user_id', userId)
      .eq('is_published', true)
      .eq('status', 'published')
  const [from, to] = pageRange(page)
  const { data, error, count } = await build(TEMPLATE_LIST_COLUMNS)
    .order('created_at', { ascending: false })
    .order('id', { ascending: true })
    .range(from, to)
  if (isRangePastEnd(error)) {
    const total = await build('id', true)
    if (total.error) throw total.error
    return { items: [], total: total.count ?? 0 }
  }
  if (error) throw error
  return { items: await enrichTemplates((data ?? []) as unknown as TemplateRow[]), total: count ?? 0 }
}

export const userTemplatesQueryOptions = (userId: string, page = 1) =>
  queryOptions({ queryKey: ['templates', 'list', { userId }, { page }], queryFn: () => getUserTemplates(userId, page) })

export function useUserTemplates(userId: string | undefined, page = 1) {
  return useQuery({ ...userTemplatesQueryOptions(userId ?? '', page), enabled: !!userId })
}
