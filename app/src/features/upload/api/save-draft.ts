// Save Draft (spec sections 4 and 7): a new draft is inserted; a loaded draft
// is updated by id; a loaded rejected template is inserted as a draft under
// the same id and then deleted from the rejected store (when that delete
// fails, the new draft is removed again and the save fails). A loaded
// pending template is handled the same way (beyond the spec): inserted as a
// draft under its id, then its pending row deleted, which takes it out of the
// review queue (see ./replace-pending). Either keeps original_template_id, so
// the draft stays an edit of the published template (a loaded draft's update
// leaves the column as it is). New files go to
// {userId}/previews/ and {userId}/templates/; a failed save removes them.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { UploadFormValues } from '../form'
import type { UploadSource } from '../source'
import { deleteReplacedPending } from './replace-pending'
import { buildPayload } from './template-payload'
import { removeStoredObjects, type StoredObject, type TransferOptions } from './upload-template-file'

async function write(
  userId: string,
  values: UploadFormValues,
  source: UploadSource,
  stored: StoredObject[],
  transfer: TransferOptions,
) {
  const supabase = getSupabase()
  const built = await buildPayload(userId, values, 'templates', source, stored, transfer)
  const payload = { ...built.payload, last_edited_at: new Date().toISOString() }
  // A rejected or pending edit of a published template stays an edit of it as a draft.
  const original =
    (source.kind === 'rejected' || source.kind === 'pending') && source.originalTemplateId
      ? { original_template_id: source.originalTemplateId }
      : {}
  if (source.kind === 'draft') {
    const { data, error } = await supabase.from('templates_draft').update(payload).eq('id', source.id).select('id')
    if (error) throw error
    // Nothing matched (the draft was deleted meanwhile): not saved.
    if (Array.isArray(data) && data.length === 0) throw new Error('Draft not found')
  } else if (source.kind === 'rejected') {
    const inserted = await supabase.from('templates_draft').insert({ id: source.id, ...payload, ...original })
    if (inserted.error) throw inserted.error
    const removed = await supabase.from('templates_rejected').delete().eq('id', source.id).eq('creator_id', userId)
    if (removed.error) {
      const undo = await supabase.from('templates_draft').delete().eq('id', source.id).eq('creator_id', userId)
      if (undo.error) {
        logQuiet('removing the draft of a rejected template', undo.error)
        // The draft stays, using the files stored for it: keep them.
        stored.length = 0
      }
      throw removed.error
    }
  } else if (source.kind === 'pending') {
    const inserted = await supabase.from('templates_draft').insert({ id: source.id, ...payload, ...original })
    if (inserted.error) throw inserted.error
    await deleteReplacedPending(
      userId,
      source.id,
      () => supabase.from('templates_draft').delete().eq('id', source.id).eq('creator_id', userId),
      stored,
    )
  } else {
    const { error } = await supabase.from('templates_draft').insert(payload)
    if (error) throw error
  }
  return built.obsolete
}

export async function saveDraft(
  userId: string,
  values: UploadFormValues,
  source: UploadSource,
  transfer: TransferOptions = {},
): Promise<void> {
  const stored: StoredObject[] = []
  let obsolete: StoredObject[]
  try {
    obsolete = await write(userId, values, source, stored, transfer)
  } catch (error) {
    await removeStoredObjects(stored, 'removing the files of a failed draft save')
    throw error
  }
  await removeStoredObjects(obsolete, 'removing a replaced public template file')
}

export function useSaveDraft() {
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
    }) => saveDraft(userId, values, source, transfer),
    // The dashboard's lists (drafts, counts) are other screens' queries: mark
    // them all stale rather than guess their keys; not this screen's own reads.
    onSuccess: () => queryClient.invalidateQueries({ predicate: (q) => q.queryKey[0] !== 'upload' }),
  })
}
