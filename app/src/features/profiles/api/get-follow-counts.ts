import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface FollowCounts {
  followers: number
  following: number
}

/** RPC get_follower_count and the length of get_user_following. */
export async function getFollowCounts(userId: string): Promise<FollowCounts> {
  const supabase = getSupabase()
  const [followers, following] = await Promise.all([
    supabase.rpc('get_follower_count', { user_id: userId }),
    supabase.rpc('get_user_following', { user_id: userId }),
  ])
  if (followers.error) logQuiet('reading the follower count', followers.error)
  if (following.error) logQuiet('reading the following list', following.error)
  return {
    followers: Number(followers.data ?? 0) || 0,
    following: Array.isArray(following.data) ? following.data.length : 0,
  }
}

export const followCountsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['follows', 'counts', userId], queryFn: () => getFollowCounts(userId) })

export function useFollowCounts(userId: string | undefined) {
  return useQuery({ ...followCountsQueryOptions(userId ?? ''), enabled: !!userId })
}
