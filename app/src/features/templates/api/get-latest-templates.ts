import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { LATEST_TEMPLATES_LIMIT } from '@/config/constants'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

/** The newest published templates; a failure is logged and thrown (the section's retry state, issue 24). */
export async function getLatestTemplates(): Promise<Template[]> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select(TEMPLATE_LIST_COLUMNS)
    .eq('is_published', true)
    .order('created_at', { ascending: false })
    .limit(LATEST_TEMPLATES_LIMIT)
  if (error) {
    logQuiet('reading the latest templates', error)
    throw error
  }
  return enrichTemplates((data ?? []) as unknown as TemplateRow[])
}

export const latestTemplatesQueryOptions = () =>
  queryOptions({ queryKey: ['templates', 'latest'], queryFn: getLatestTemplates })

export function useLatestTemplates() {
  return useQuery(latestTemplatesQueryOptions())
}
