import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export async function isFollowing(follower: string, following: string): Promise<boolean> {
  const { data, error } = await getSupabase().rpc('is_following', { follower, following })
  if (error) throw error
  return data === true
}

export const isFollowingQueryOptions = (follower: string, following: string) =>
  queryOptions({ queryKey: ['follows', 'is-following', follower, following], queryFn: () => isFollowing(follower, following) })

export function useIsFollowing(follower: string | undefined, following: string | undefined) {
  return useQuery({
    ...isFollowingQueryOptions(follower ?? '', following ?? ''),
    enabled: !!follower && !!following && follower !== following,
  })
}
