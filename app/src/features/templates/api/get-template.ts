// One published template with its category, creator and upvote count.
// Resolves to null when there is no such template.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

export async function getTemplate(id: string): Promise<Template | null> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select(TEMPLATE_LIST_COLUMNS)
    .eq('id', id)
    .eq('is_published', true)
    .maybeSingle()
  if (error) {
    // An id that is not a uuid is simply not a template.
    if (error.code === '22P02' || error.code === 'PGRST116') return null
    throw error
  }
  if (!data) return null
  const [template] = await enrichTemplates([data as unknown as TemplateRow])
  return template
}

export const templateQueryOptions = (id: string) =>
  queryOptions({ queryKey: ['templates', 'detail', id], queryFn: () => getTemplate(id) })

export function useTemplate(id: string) {
  return useQuery(templateQueryOptions(id))
}
