// Trending: the most upvoted published templates (ties: the most recently
// upvoted first), in that order. A failed read is logged and thrown: the home
// section shows its retry state rather than an empty list (issue 24).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { TRENDING_TEMPLATES_LIMIT } from '@/config/constants'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

export async function getTrendingTemplates(): Promise<Template[]> {
  const supabase = getSupabase()
  const counts = await supabase
    .from('template_upvote_counts')
    .select('template_id, upvote_count, latest_upvote_at')
    .order('upvote_count', { ascending: false })
    .order('latest_upvote_at', { ascending: false })
    .limit(TRENDING_TEMPLATES_LIMIT)
  if (counts.error) {
    logQuiet('reading trending templates', counts.error)
    throw counts.error
  }
  const ids = ((counts.data ?? []) as Array<{ template_id: string }>).map((r) => r.template_id)
  if (ids.length === 0) return []
  const { data, error } = await supabase.from('templates').select(TEMPLATE_LIST_COLUMNS).in('id', ids).eq('is_published', true)
  if (error) {
    logQuiet('reading trending templates', error)
    throw error
  }
  const rank = new Map(ids.map((id, i) => [id, i]))
  const rows = ((data ?? []) as unknown as TemplateRow[]).sort((a, b) => (rank.get(a.id) ?? 0) - (rank.get(b.id) ?? 0))
  return enrichTemplates(rows)
}

export const trendingTemplatesQueryOptions = () =>
  queryOptions({ queryKey: ['templates', 'trending'], queryFn: getTrendingTemplates })

export function useTrendingTemplates() {
  return useQuery(trendingTemplatesQueryOptions())
}
