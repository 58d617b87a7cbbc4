// A profile by username, falling back to the id when the parameter is a UUID.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { isUuid } from '@/lib/format'
import type { Profile } from '@/lib/types'

const COLUMNS = 'id, username, display_name, avatar_url, bio, social_links, created_at'

export async function getProfile(usernameOrId: string): Promise<Profile | null> {
  const supabase = getSupabase()
  const byName = await supabase.from('profiles').select(COLUMNS).eq('username', usernameOrId.toLowerCase()).maybeSingle()
  if (byName.error) throw byName.error
  if (byName.data) return byName.data as Profile
  if (!isUuid(usernameOrId)) return null
  const byId = await supabase.from('profiles').select(COLUMNS).eq('id', usernameOrId).maybeSingle()
  if (byId.error) throw byId.error
  return (byId.data as Profile | null) ?? null
}

export const profileQueryOptions = (usernameOrId: string) =>
  queryOptions({ queryKey: ['profiles', 'detail', usernameOrId], queryFn: () => getProfile(usernameOrId) })

export function useProfile(usernameOrId: string) {
  return useQuery(profileQueryOptions(usernameOrId))
}
