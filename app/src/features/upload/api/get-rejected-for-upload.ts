// A rejected template to resubmit (/upload?template={id}): read by id and
// creator_id, with its rejection feedback.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { RejectedRow } from '../form'

export async function getRejectedForUpload(id: string, userId: string): Promise<RejectedRow> {
  const { data, error } = await getSupabase()
    .from('templates_rejected')
    .select('*')
    .eq('id', id)
    .eq('creator_id', userId)
    .single()
  if (error) throw error
  return data as RejectedRow
}

export const rejectedForUploadQueryOptions = (id: string, userId: string) =>
  queryOptions({
    queryKey: ['upload', 'rejected', id, userId],
    queryFn: () => getRejectedForUpload(id, userId),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  })

export function useRejectedForUpload(id: string | null, userId: string | undefined) {
  return useQuery({ ...rejectedForUploadQueryOptions(id ?? '', userId ?? ''), enabled: !!id && !!userId })
}
