import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'
import { fetchPage, newestFirst, type Paged } from '@/lib/paging'

/**
 * One page of a creator's published templates (is_published and status
 * 'published'), newest first, and their count.
 */
export async function getUserTemplates(userId: string, page = 1): Promise<Paged<Template>> {
  const build = (columns: string, head: boolean) =>
    getSupabase()
      .from('templates')
      .select(columns, { count: 'exact', head })
      .eq('user_id', userId)
      .eq('is_published', true)
      .eq('status', 'published')
  const { items, total } = await fetchPage(build, TEMPLATE_LIST_COLUMNS, newestFirst, page)
  return { items: await enrichTemplates(items as TemplateRow[]), total }
}

export const userTemplatesQueryOptions = (userId: string, page = 1) =>
  queryOptions({ queryKey: ['templates', 'list', { userId }, { page }], queryFn: () => getUserTemplates(userId, page) })

export function useUserTemplates(userId: string | undefined, page = 1) {
  return useQuery({ ...userTemplatesQueryOptions(userId ?? '', page), enabled: !!userId })
}
