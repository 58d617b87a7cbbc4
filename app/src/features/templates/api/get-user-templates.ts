import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

/** A creator's published templates (is_published and status 'published'), newest first. */
export async function getUserTemplates(userId: string): Promise<Template[]> {
  const { data, error } = await getSupabase()
    .from('templates')
    .select(TEMPLATE_LIST_COLUMNS)
    .eq('user_id', userId)
    .eq('is_published', true)
    .eq('status', 'published')
    .order('created_at', { ascending: false })
  if (error) throw error
  return enrichTemplates((data ?? []) as unknown as TemplateRow[])
}

export const userTemplatesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['templates', 'list', { userId }], queryFn: () => getUserTemplates(userId) })

export function useUserTemplates(userId: string | undefined) {
  return useQuery({ ...userTemplatesQueryOptions(userId ?? ''), enabled: !!userId })
}
