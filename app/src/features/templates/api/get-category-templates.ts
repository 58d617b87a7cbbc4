import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'
import { fetchPage, newestFirst, type Paged } from '@/lib/paging'

/** One page of the published templates of one category, newest first, and their count. */
export async function getCategoryTemplates(categoryId: string, page = 1): Promise<Paged<Template>> {
  const build = (columns: string, head: boolean) =>
    getSupabase()
      .from('templates')
      .select(columns, { count: 'exact', head })
      .eq('is_published', true)
      .eq('category_id', categoryId)
  const { items, total } = await fetchPage(build, TEMPLATE_LIST_COLUMNS, newestFirst, page)
  return { items: await enrichTemplates(items as TemplateRow[]), total }
}

export const categoryTemplatesQueryOptions = (categoryId: string, page = 1) =>
  queryOptions({
    queryKey: ['templates', 'list', { categoryId }, { page }],
    queryFn: () => getCategoryTemplates(categoryId, page),
  })

export function useCategoryTemplates(categoryId: string | undefined, page = 1) {
  return useQuery({ ...categoryTemplatesQueryOptions(categoryId ?? '', page), enabled: !!categoryId })
}
