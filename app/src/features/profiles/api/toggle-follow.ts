import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import { isFollowingQueryOptions } from './is-following'
import { followCountsQueryOptions, type FollowCounts } from './get-follow-counts'

export async function toggleFollow(follower: string, following: string, now: boolean): Promise<boolean> {
  const table = getSupabase().from('followers')
  const { error } = now
    ? await table.delete().eq('follower_id', follower).eq('following_id', following)
    : await table.insert({ follower_id: follower, following_id: following })
  if (error) throw error
  return !now
}

export function useToggleFollow(follower: string, following: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (currentlyFollowing: boolean) => toggleFollow(follower, following, currentlyFollowing),
    onSuccess: (now) => {
      queryClient.setQueryData(isFollowingQueryOptions(follower, following).queryKey, now)
      queryClient.setQueryData(followCountsQueryOptions(following).queryKey, (c: FollowCounts | undefined) =>
        c ? { ...c, followers: Math.max(0, c.followers + (now ? 1 : -1)) } : c,
      )
      toastSuccess(now ? 'Following' : 'Unfollowed')
    },
    onError: () => toastError('Failed to update follow status. Please try again.'),
  })
}
