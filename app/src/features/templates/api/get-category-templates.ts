import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

/** Published templates of one category, newest first. */
export async function getCategoryTemplates(categoryId: string): Promise<Template[]> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select(TEMPLATE_LIST_COLUMNS)
    .eq('is_published', true)
    .eq('category_id', categoryId)
    .order('created_at', { ascending: false })
  if (error) throw error
  return enrichTemplates((data ?? []) as unknown as TemplateRow[])
}

export const categoryTemplatesQueryOptions = (categoryId: string) =>
  queryOptions({ queryKey: ['templates', 'list', { categoryId }], queryFn: () => getCategoryTemplates(categoryId) })

export function useCategoryTemplates(categoryId: string | undefined) {
  return useQuery({ ...categoryTemplatesQueryOptions(categoryId ?? ''), enabled: !!categoryId })
}
