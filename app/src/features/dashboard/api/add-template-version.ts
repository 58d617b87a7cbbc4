// Publishes a new version of a published template (issue 44, item 6): the
// new files are stored first (previews in the public bucket, the template
// file in the bucket its price asks for: the private 'template-files' for a
// paid template, see @/lib/template-upload), then add_template_version
// replaces them on the template and records the changelog line in one
// transaction, checking the caller owns the template
// (migrations/20261128000200_template_versions.sql). A failed publish
// removes the files it stored; an upload the network interrupted keeps its
// staged bytes, so publishing the same file again resumes it.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { PAID_FILES_BUCKET, TEMPLATES_BUCKET } from '@/config/constants'
import { removeStoredObjects, uploadTemplateFile, type StoredObject, type TransferOptions } from '@/lib/template-upload'

export interface NewVersion {
  changelog: string
  /** A new template file, or null to keep the file. */
  file: File | null
  /** A new main preview, or null to keep it. */
  mainPreview: File | null
  /** New additional previews replacing the current ones, or null to keep them. */
  previews: File[] | null
}

export interface PublishedVersion {
  version: number
  changelog: string
  created_at: string
}

export async function addTemplateVersion(
  template: { id: string; price: number | string },
  userId: string,
  next: NewVersion,
  transfer: TransferOptions = {},
): Promise<PublishedVersion> {
  const stored: StoredObject[] = []
  const paid = Math.round(Number(template.price ?? 0) * 100) > 0
  try {
    let mainPreview: string | null = null
    if (next.mainPreview) {
      const upload = await uploadTemplateFile(userId, 'previews', next.mainPreview)
      stored.push(upload)
      mainPreview = upload.url
    }
    let previews: string[] | null = null
    if (next.previews) {
      previews = []
      for (const file of next.previews) {
        const upload = await uploadTemplateFile(userId, 'previews', file)
        stored.push(upload)
        previews.push(upload.url)
      }
    }
    let file: string | null = null
    if (next.file) {
      const upload = await uploadTemplateFile(userId, 'files', next.file, paid ? PAID_FILES_BUCKET : TEMPLATES_BUCKET, {
        ...transfer,
        scope: `version:${template.id}`,
      })
      stored.push(upload)
      file = upload.url
    }
    const { data, error } = await getSupabase().rpc('add_template_version', {
      template_id: template.id,
      changelog: next.changelog.trim(),
      // Left out: kept as they are.
      new_file: file ?? undefined,
      new_preview_image_url: mainPreview ?? undefined,
      new_preview_images: previews ?? undefined,
    })
    if (error) throw error
    return data as unknown as PublishedVersion
  } catch (error) {
    await removeStoredObjects(stored, 'removing the files of a version that was not published')
    throw error
  }
}

export function useAddTemplateVersion(template: { id: string; price: number | string }, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: ({ next, transfer }: { next: NewVersion; transfer?: TransferOptions }) =>
      addTemplateVersion(template, userId, next, transfer),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['dashboard'] })
      // The template page shows the new previews and "Updated on ...".
      void queryClient.invalidateQueries({ queryKey: ['templates'] })
    },
  })
}
