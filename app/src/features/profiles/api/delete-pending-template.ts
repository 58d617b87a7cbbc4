// Deletes a pending template (RPC delete_unpublished_template, one
// transaction) and then its files in the 'templates' bucket.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { bucketPath } from '@/lib/storage'
import { toastError, toastSuccess } from '@/lib/toast'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { pendingTemplatesQueryOptions } from './get-pending-templates'

export async function deletePendingTemplate(templateId: string): Promise<void> {
  const supabase = getSupabase()
  const { data, error } = await supabase.rpc('delete_unpublished_template', { kind: 'pending', template_id: templateId })
  if (error) throw error
  const paths = ((data ?? []) as string[])
    .map((f) => bucketPath(f, TEMPLATES_BUCKET))
    .filter((p): p is string => !!p)
  if (paths.length) {
    const removed = await supabase.storage.from(TEMPLATES_BUCKET).remove(paths)
    if (removed.error) logQuiet('removing the files of a deleted template', removed.error)
  }
}

export function useDeletePendingTemplate(creatorId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: deletePendingTemplate,
    onSuccess: () => {
      toastSuccess('Template deleted successfully')
      void queryClient.invalidateQueries({ queryKey: pendingTemplatesQueryOptions(creatorId).queryKey })
    },
    onError: () => toastError('Failed to delete template'),
  })
}
