import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { PendingTemplate } from '@/lib/types'

/** The creator's templates waiting for review, newest first. */
export async function getPendingTemplates(creatorId: string): Promise<PendingTemplate[]> {
  const { data, error } = await getSupabase()
    .from('templates_pending_approval')
    .select('id, creator_id, title, description, price, preview_image_url, tags, status, created_at')
    .eq('creator_id', creatorId)
    .order('created_at', { ascending: false })
  if (error) throw error
  return (data ?? []) as PendingTemplate[]
}

export const pendingTemplatesQueryOptions = (creatorId: string) =>
  queryOptions({ queryKey: ['templates', 'pending', creatorId], queryFn: () => getPendingTemplates(creatorId) })

export function usePendingTemplates(creatorId: string | undefined) {
  return useQuery({ ...pendingTemplatesQueryOptions(creatorId ?? ''), enabled: !!creatorId })
}
