// Deletes one of the user's unpublished templates: the row by id (and owner)
// from its store, then its files. Published templates are not deletable by
// their owner (see `canDelete` in ../model).
//
// The delete returns the deleted row, so the files removed are those of the
// row that was really deleted, and nothing is removed when nothing was
// (someone else's id, or a row already gone). Files are removed from the
// 'templates' bucket (previews and free files) and from the private
// 'template-files' bucket (paid files), by the paths in their stored URLs.
// A submission (or a draft saved from one) that edits a published template
// may share its files: those the published template still uses are kept (a
// paid one's file is read from paid_template_links). A failed file removal is
// only logged: the template itself is gone.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { toastError, toastSuccess } from '@/lib/toast'
import { canDelete, filesByBucket, KIND_TABLE, type TemplateKind } from '../model'

const FILE_COLUMNS = 'preview_image_url, preview_images, template_file_url'

interface DeletedRow {
  id: string
  preview_image_url: string | null
  preview_images: string[] | null
  template_file_url: string | null
  original_template_id?: string | null
}

export class NothingDeleted extends Error {
  constructor() {
    super('Template not found')
  }
}

export async function deleteMyTemplate(kind: TemplateKind, id: string, userId: string): Promise<void> {
  if (!canDelete(kind)) throw new Error('Published templates cannot be deleted here')
  const supabase = getSupabase()
  const { table, owner } = KIND_TABLE[kind]
  // Drafts carry original_template_id too (migrations/20261123000700_draft_original_template.sql).
  const columns = `id, ${FILE_COLUMNS}, original_template_id`
  const { data, error } = await supabase
    .from(table as 'templates_draft')
    .delete()
    .eq('id', id)
    .eq(owner as 'creator_id', userId)
    .select(columns)
  if (error) throw error
  const rows = (data ?? []) as unknown as DeletedRow[]
  if (rows.length === 0) throw new NothingDeleted()

  for (const row of rows) {
    let keep: Array<string | null> = []
    if (row.original_template_id) {
      const { data: published, error: readError } = await supabase
        .from('templates')
        .select(FILE_COLUMNS)
        .eq('id', row.original_template_id)
        .maybeSingle()
      if (readError) {
        // Unsure what the published template uses: keep every file.
        logQuiet('reading the published template of a deleted submission', readError)
        continue
      }
      if (published) keep = [published.preview_image_url, ...(published.preview_images ?? []), published.template_file_url]
      // A paid template's file is kept out of its public row, in
      // paid_template_links, which its owner reads.
      const { data: kept, error: keptError } = await supabase
        .from('paid_template_links')
        .select('template_file_url')
        .eq('template_id', row.original_template_id)
        .maybeSingle()
      if (keptError) {
        logQuiet('reading the paid file of the published template of a deleted submission', keptError)
        continue
      }
      if (kept?.template_file_url) keep.push(kept.template_file_url)
    }
    for (const [bucket, paths] of filesByBucket(row, keep)) {
      const removed = await supabase.storage.from(bucket).remove(paths)
      if (removed.error) logQuiet('removing the files of a deleted template', removed.error)
    }
  }
}

export function useDeleteMyTemplate(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ kind, id }: { kind: TemplateKind; id: string }) => deleteMyTemplate(kind, id, userId),
    onSuccess: () => toastSuccess('Template deleted successfully'),
    onError: () => toastError('Failed to delete template. Please try again.'),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
      // The profile's Pending Review tab reads the same store.
      void queryClient.invalidateQueries({ queryKey: ['templates', 'pending', userId] })
    },
  })
}
