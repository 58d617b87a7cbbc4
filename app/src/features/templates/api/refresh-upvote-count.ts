// Reads a template's upvote count again and writes it into the template's
// detail cache entry, where the page reads the count from. Used when realtime
// reports an upvote change: the count is re-read rather than moved by one, so
// the user's own upvote (already counted by the toggle) is never counted twice.
import type { QueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template } from '@/lib/types'
import { templateQueryOptions } from './get-template'

export async function getUpvoteCount(templateId: string): Promise<number> {
  const { data, error } = await getSupabase()
    .from('template_upvote_counts')
    .select('upvote_count')
    .eq('template_id', templateId)
    .maybeSingle()
  if (error) throw error
  // The view has no row for a template nobody upvoted.
  return Number(data?.upvote_count ?? 0) || 0
}

export async function refreshUpvoteCount(queryClient: QueryClient, templateId: string): Promise<void> {
  const count = await getUpvoteCount(templateId)
  queryClient.setQueryData(templateQueryOptions(templateId).queryKey, (t: Template | null | undefined) =>
    t && t.upvote_count !== count ? { ...t, upvote_count: count } : t,
  )
}
