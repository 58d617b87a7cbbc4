// A submitted template to edit (/upload?template={id}): the user's rejected
// template (resubmitted with its feedback), else their own template still
// waiting for review (its submission is replaced). Looked up in that order,
// each by id and creator_id, so only the user's own rows load.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { PendingRow, RejectedRow } from '../form'

export type Submission = { kind: 'rejected'; row: RejectedRow } | { kind: 'pending'; row: PendingRow }

/** Which store could not be read: the screen names it in its toast. */
export class SubmissionLoadError extends Error {
  constructor(
    readonly store: 'rejected' | 'pending',
    readonly cause: unknown,
  ) {
    super(`Could not read the ${store} template`)
    this.name = 'SubmissionLoadError'
  }
}

export async function getSubmissionForUpload(id: string, userId: string): Promise<Submission> {
  const supabase = getSupabase()
  const rejected = await supabase.from('templates_rejected').select('*').eq('id', id).eq('creator_id', userId).maybeSingle()
  if (rejected.error) throw new SubmissionLoadError('rejected', rejected.error)
  if (rejected.data) return { kind: 'rejected', row: rejected.data as RejectedRow }
  const pending = await supabase
    .from('templates_pending_approval')
    .select('*')
    .eq('id', id)
    .eq('creator_id', userId)
    .maybeSingle()
  if (pending.error) throw new SubmissionLoadError('pending', pending.error)
  if (pending.data) return { kind: 'pending', row: pending.data as PendingRow }
  // In neither store (or someone else's): the spec's message for `template=`.
  throw new SubmissionLoadError('rejected', new Error('Template not found'))
}

export const submissionForUploadQueryOptions = (id: string, userId: string) =>
  queryOptions({
    queryKey: ['upload', 'submission', id, userId],
    queryFn: () => getSubmissionForUpload(id, userId),
    // The form is filled once from what is read now; never from a cached copy.
    staleTime: 0,
    gcTime: 0,
    retry: false,
  })

export function useSubmissionForUpload(id: string | null, userId: string | undefined) {
  return useQuery({ ...submissionForUploadQueryOptions(id ?? '', userId ?? ''), enabled: !!id && !!userId })
}
