// Who follows the user and whom the user follows (RPCs get_user_followers and
// get_user_following), newest first.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface AudienceMember {
  id: string
  username: string | null
  display_name: string | null
  avatar_url: string | null
  followed_at: string
}

export interface Audience {
  followers: AudienceMember[]
  following: AudienceMember[]
}

export async function getAudience(userId: string): Promise<Audience> {
  const supabase = getSupabase()
  const [followers, following] = await Promise.all([
    supabase.rpc('get_user_followers', { user_id: userId }),
    supabase.rpc('get_user_following', { user_id: userId }),
  ])
  if (followers.error) throw followers.error
  if (following.error) throw following.error
  return {
    followers: (followers.data ?? []) as AudienceMember[],
    following: (following.data ?? []) as AudienceMember[],
  }
}

export const audienceQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['follows', 'audience', userId], queryFn: () => getAudience(userId) })

export function useAudience(userId: string | undefined) {
  // Follows change on other screens (a profile's Follow button): read afresh
  // whenever the screen opens.
  return useQuery({ ...audienceQueryOptions(userId ?? ''), enabled: !!userId, refetchOnMount: 'always' })
}
