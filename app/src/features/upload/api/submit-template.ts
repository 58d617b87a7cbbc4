// Submit for Review (spec sections 4 and 7): when resubmitting, the rejected
// record is deleted first; then the pending row is inserted (the draft
// payload without last_edited_at, status 'Pending Approval'); then the draft
// it came from is deleted, a failure of which is only logged. A new template
// file goes to {userId}/files/; a failed submit removes what it stored.
//
// The order follows the spec. If the insert fails after the rejected record
// is gone, nothing is lost: the form still holds every value and a retry (or
// Save Draft) writes them again.
//
// Editing a submission still waiting for review replaces it (beyond the
// spec, which only names the rejected case): the new pending row is inserted
// under a new id, keeping original_template_id, then the old one is deleted,
// in the order of ./replace-pending, which never loses either.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { UploadFormValues } from '../form'
import type { UploadSource } from '../source'
import { deleteReplacedPending, newRowId } from './replace-pending'
import { buildPayload } from './template-payload'
import { removeStoredObjects, type StoredObject, type TransferOptions } from './upload-template-file'

export type SubmitOutcome = 'submitted' | 'resubmitted'

async function write(
  userId: string,
  values: UploadFormValues,
  source: UploadSource,
  stored: StoredObject[],
  transfer: TransferOptions,
) {
  const supabase = getSupabase()
  const { payload, obsolete } = await buildPayload(userId, values, 'files', source, stored, transfer)
  // The form checks the required fields before submitting; the column is not null.
  const categoryId = payload.category_id
  if (!categoryId) throw new Error('Missing required fields')
  if (source.kind === 'rejected') {
    const { error } = await supabase.from('templates_rejected').delete().eq('id', source.id).eq('creator_id', userId)
    if (error) throw error
  }
  const replacing = source.kind === 'pending'
  // The replacement of a pending row gets its id here, to be removed by it if need be.
  const id = replacing ? newRowId() : null
  const { error } = await supabase.from('templates_pending_approval').insert({
    ...(id ? { id } : {}),
    ...payload,
    category_id: categoryId,
    status: 'Pending Approval' as const,
    // An edit of a published template (rejected, pending, or a draft saved
    // from either) stays an edit of it (approval then replaces it).
    ...(source.kind !== 'new' && source.originalTemplateId ? { original_template_id: source.originalTemplateId } : {}),
  })
  if (error) throw error
  if (replacing && id) {
    await deleteReplacedPending(
      userId,
      source.id,
      () => supabase.from('templates_pending_approval').delete().eq('id', id).eq('creator_id', userId),
      stored,
    )
  }
  return obsolete
}

export async function submitTemplate(
  userId: string,
  values: UploadFormValues,
  source: UploadSource,
  transfer: TransferOptions = {},
): Promise<SubmitOutcome> {
  const stored: StoredObject[] = []
  let obsolete: StoredObject[]
  try {
    obsolete = await write(userId, values, source, stored, transfer)
  } catch (error) {
    await removeStoredObjects(stored, 'removing the files of a failed submission')
    throw error
  }
  if (source.kind === 'draft') {
    const { error } = await getSupabase().from('templates_draft').delete().eq('id', source.id).eq('creator_id', userId)
    if (error) {
      logQuiet('removing the submitted draft', error)
      // The draft stays, and may still use its public file: keep it.
      return 'submitted'
    }
  }
  await removeStoredObjects(obsolete, 'removing a replaced public template file')
  return source.kind === 'rejected' || source.kind === 'pending' ? 'resubmitted' : 'submitted'
}

export function useSubmitTemplate() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({
      userId,
      values,
      source,
      transfer,
    }: {
      userId: string
      values: UploadFormValues
      source: UploadSource
      transfer?: TransferOptions
    }) => submitTemplate(userId, values, source, transfer),
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'upload' }),
  })
}
