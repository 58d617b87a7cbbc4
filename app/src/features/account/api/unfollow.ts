// Unfollow from the audience screen: deletes the follow by both ids.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import { audienceQueryOptions, type Audience } from './get-audience'

export async function unfollow(followerId: string, followingId: string): Promise<void> {
  const { error } = await getSupabase()
    .from('followers')
    .delete()
    .eq('follower_id', followerId)
    .eq('following_id', followingId)
  if (error) throw error
}

export function useUnfollow(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (followingId: string) => unfollow(userId, followingId),
    onSuccess: (_, followingId) => {
      queryClient.setQueryData(audienceQueryOptions(userId).queryKey, (a: Audience | undefined) =>
        a ? { ...a, following: a.following.filter((m) => m.id !== followingId) } : a,
      )
      // The profile screens' follow state and counts.
      void queryClient.invalidateQueries({ queryKey: ['follows', 'is-following', userId, followingId] })
      void queryClient.invalidateQueries({ queryKey: ['follows', 'counts'] })
      toastSuccess('Unfollowed successfully')
    },
    onError: () => toastError('Failed to unfollow user'),
  })
}
