// The owner's new avatar: the previous file is removed first, the new one
// stored at avatars/{userId}/{timestamp}-{random}.{ext} (upsert), and its
// public URL written to the profile.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { bucketPath, uploadName } from '@/lib/storage'
import { toastError, toastSuccess } from '@/lib/toast'
import { AVATAR_BUCKET } from '@/config/constants'

export async function updateAvatar(userId: string, file: File, previousUrl: string | null): Promise<string> {
  const bucket = getSupabase().storage.from(AVATAR_BUCKET)
  const previous = bucketPath(previousUrl, AVATAR_BUCKET)
  if (previous) {
    const { error } = await bucket.remove([previous])
    if (error) logQuiet('removing the previous avatar', error)
  }
  const path = `${userId}/${uploadName(file)}`
  const uploaded = await bucket.upload(path, file, { upsert: true, contentType: file.type, cacheControl: '3600' })
  if (uploaded.error) throw uploaded.error
  const publicUrl = bucket.getPublicUrl(path).data.publicUrl
  const { error } = await getSupabase()
    .from('profiles')
    .update({ avatar_url: publicUrl, updated_at: new Date().toISOString() })
    .eq('id', userId)
  if (error) throw error
  return publicUrl
}

export function useUpdateAvatar(userId: string) {
  const queryClient = useQueryClient()
  const mutation = useMutation({
    mutationFn: ({ file, previousUrl }: { file: File; previousUrl: string | null }) =>
      updateAvatar(userId, file, previousUrl),
    onSuccess: () => {
      toastSuccess('Avatar updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['profiles'] })
    },
    // The chosen picture is kept (issue 24): "Try again" sends the same file,
    // without choosing it again.
    onError: (_error, chosen) =>
      toastError('Failed to update avatar. Please try again.', 'Error', () => mutation.mutate(chosen)),
  })
  return mutation
}
