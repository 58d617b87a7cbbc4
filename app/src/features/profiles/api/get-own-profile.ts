import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { ProfileSummary } from '@/lib/types'

/** The signed-in user's own profile summary (header, drawer). */
export async function getOwnProfile(userId: string): Promise<ProfileSummary | null> {
  const { data, error } = await getSupabase()
    .from('profiles')
    .select('id, avatar_url, display_name, username')
    .eq('id', userId)
    .maybeSingle()
  if (error) {
    logQuiet('reading the own profile', error)
    return null
  }
  return (data as ProfileSummary | null) ?? null
}

export const ownProfileQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['profiles', 'own', userId], queryFn: () => getOwnProfile(userId) })

export function useOwnProfile(userId: string | undefined) {
  return useQuery({ ...ownProfileQueryOptions(userId ?? ''), enabled: !!userId })
}
