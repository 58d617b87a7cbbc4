import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'

export async function updateBio(userId: string, bio: string): Promise<void> {
  const { error } = await getSupabase()
    .from('profiles')
    .update({ bio, updated_at: new Date().toISOString() })
    .eq('id', userId)
  if (error) throw error
}

export function useUpdateBio(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (bio: string) => updateBio(userId, bio),
    onSuccess: () => {
      toastSuccess('Bio updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['profiles'] })
    },
    onError: () => toastError('Failed to update bio'),
  })
}
