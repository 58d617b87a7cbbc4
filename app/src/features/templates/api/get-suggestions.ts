// 'You May Also Like': up to three published templates from the same
// category, then by the same author, then any others; if none, one fallback.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { SUGGESTIONS_LIMIT } from '@/config/constants'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

export interface SuggestionSource {
  id: string
  category_id: string | null
  user_id: string
}

async function published(limit: number, exclude: string[], narrow?: { column: string; value: string }) {
  let query = getSupabase().from('templates').select(TEMPLATE_LIST_COLUMNS).eq('is_published', true)
  if (narrow) query = query.eq(narrow.column, narrow.value)
  if (exclude.length) query = query.not('id', 'in', `(${exclude.join(',')})`)
  const { data, error } = await query.order('downloads_count', { ascending: false }).limit(limit)
  if (error) throw error
  return (data ?? []) as unknown as TemplateRow[]
}

export async function getSuggestions(source: SuggestionSource): Promise<Template[]> {
  try {
    const picked: TemplateRow[] = []
    const exclude = () => [source.id, ...picked.map((t) => t.id)]
    const stages: Array<{ column: string; value: string } | undefined> = [
      source.category_id ? { column: 'category_id', value: source.category_id } : undefined,
      { column: 'user_id', value: source.user_id },
      undefined,
    ]
    for (const [i, narrow] of stages.entries()) {
      if (picked.length >= SUGGESTIONS_LIMIT) break
      if (i === 0 && !narrow) continue
      picked.push(...(await published(SUGGESTIONS_LIMIT - picked.length, exclude(), narrow)))
    }
    if (picked.length === 0) {
      const { data, error } = await getSupabase()
        .from('templates')
        .select(TEMPLATE_LIST_COLUMNS)
        .eq('is_published', true)
        .neq('id', source.id)
        .limit(1)
      if (error) throw error
      picked.push(...((data ?? []) as unknown as TemplateRow[]))
    }
    return enrichTemplates(picked.slice(0, SUGGESTIONS_LIMIT))
  } catch (error) {
    logQuiet('reading suggestions', error)
    return []
  }
}

export const suggestionsQueryOptions = (source: SuggestionSource) =>
  queryOptions({ queryKey: ['templates', 'suggestions', source.id], queryFn: () => getSuggestions(source) })

export function useSuggestions(source: SuggestionSource | null) {
  return useQuery({
    ...suggestionsQueryOptions(source ?? { id: '', category_id: null, user_id: '' }),
    enabled: !!source,
  })
}
