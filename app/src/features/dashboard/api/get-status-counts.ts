// The Template Status Overview: how many of the user's templates are in each
// store (drafts, published, pending, rejected), as head counts.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { TemplateKind } from '../model'

export type StatusCounts = Record<TemplateKind, number>

export async function getStatusCounts(userId: string): Promise<StatusCounts> {
  const supabase = getSupabase()
  const head = { count: 'exact', head: true } as const
  const [drafts, published, pending, rejected] = await Promise.all([
    supabase.from('templates_draft').select('id', head).eq('creator_id', userId),
    supabase.from('templates').select('id', head).eq('user_id', userId).eq('is_published', true),
    supabase.from('templates_pending_approval').select('id', head).eq('creator_id', userId),
    supabase.from('templates_rejected').select('id', head).eq('creator_id', userId),
  ])
  const failed = [drafts, published, pending, rejected].find((r) => r.error)
  if (failed?.error) throw failed.error
  return {
    draft: drafts.count ?? 0,
    published: published.count ?? 0,
    pending: pending.count ?? 0,
    rejected: rejected.count ?? 0,
  }
}

export const statusCountsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['dashboard', 'status-counts', userId], queryFn: () => getStatusCounts(userId) })

export function useStatusCounts(userId: string | undefined) {
  return useQuery({ ...statusCountsQueryOptions(userId ?? ''), enabled: !!userId })
}
