import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import { wishlistEntryQueryOptions } from './get-wishlist-entry'

export async function toggleWishlist(templateId: string, userId: string, listed: boolean): Promise<boolean> {
  const table = getSupabase().from('wishlist')
  const { error } = listed
    ? await table.delete().eq('template_id', templateId).eq('user_id', userId)
    : await table.insert({ template_id: templateId, user_id: userId })
  if (error) throw error
  return !listed
}

export function useToggleWishlist(templateId: string, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (listed: boolean) => toggleWishlist(templateId, userId, listed),
    onSuccess: (now) => {
      queryClient.setQueryData(wishlistEntryQueryOptions(templateId, userId).queryKey, now)
      void queryClient.invalidateQueries({ queryKey: ['wishlist', 'list'] })
      toastSuccess(now ? 'Added to Wishlist' : 'Removed from Wishlist')
    },
    onError: () => toastError('Failed to update wishlist'),
  })
}
