import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'
import { isRangePastEnd, pageRange, type Paged } from '@/lib/paging'

/** One page of the published templates of one category, newest first, and their count. */
export async function getCategoryTemplates(categoryId: string, page = 1): Promise<Paged<Template>> {
  const build = (columns: string, head = false) =>
    getSupabase()
      .from('templates')
      .select(columns, { count: 'exact', head })
      .eq('is_published', true)
      .eq('category_id', categoryId)
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

export const categoryTemplatesQueryOptions = (categoryId: string, page = 1) =>
  queryOptions({
    queryKey: ['templates', 'list', { categoryId }, { page }],
    queryFn: () => getCategoryTemplates(categoryId, page),
  })

export function useCategoryTemplates(categoryId: string | undefined, page = 1) {
  return useQuery({ ...categoryTemplatesQueryOptions(categoryId ?? '', page), enabled: !!categoryId })
}
