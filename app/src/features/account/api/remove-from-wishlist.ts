// Removes a template from the user's wishlist, from the wishlist screen
// itself (issue 44, low: it had no remove button). The list drops the card at
// once and is read again; the template page's toggle reads the same rows.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import type { Template } from '@/lib/types'

export async function removeFromWishlist(templateId: string, userId: string): Promise<void> {
  const { error } = await getSupabase().from('wishlist').delete().eq('template_id', templateId).eq('user_id', userId)
  if (error) throw error
}

export function useRemoveFromWishlist(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (templateId: string) => removeFromWishlist(templateId, userId),
    onSuccess: (_, templateId) => {
      queryClient.setQueryData<Template[]>(['wishlist', 'list', userId], (list) => list?.filter((t) => t.id !== templateId))
      // The template page's own toggle (['wishlist', 'entry', ...]) and the list.
      void queryClient.invalidateQueries({ queryKey: ['wishlist'] })
      toastSuccess('Removed from Wishlist')
    },
    onError: () => toastError('Failed to update wishlist'),
  })
}
