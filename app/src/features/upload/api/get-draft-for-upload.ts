// A draft to continue (/upload?draft={id}): read by id and creator_id, so
// only the user's own draft loads.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { DraftRow } from '../form'

export async function getDraftForUpload(id: string, userId: string): Promise<DraftRow> {
  const { data, error } = await getSupabase()
    .from('templates_draft')
    .select('*')
    .eq('id', id)
    .eq('creator_id', userId)
    // maybeSingle: a draft that is gone is not a 406 in the console.
    .maybeSingle()
  if (error) throw error
  if (!data) throw new Error('Draft not found')
  return data as DraftRow
}

export const draftForUploadQueryOptions = (id: string, userId: string) =>
  queryOptions({
    queryKey: ['upload', 'draft', id, userId],
    queryFn: () => getDraftForUpload(id, userId),
    // The form is filled once from what is read now; never from a cached copy.
    staleTime: 0,
    gcTime: 0,
    retry: false,
  })

export function useDraftForUpload(id: string | null, userId: string | undefined) {
  return useQuery({ ...draftForUploadQueryOptions(id ?? '', userId ?? ''), enabled: !!id && !!userId })
}
