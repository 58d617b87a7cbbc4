// The signed-in user's own profile with everything the account screens edit
// or show (payment account included). Its key starts with 'profiles', so the
// profile mutations that invalidate ['profiles'] refresh it too.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Profile } from '@/lib/types'

export interface AccountProfile extends Profile {
  stripe_account_id: string | null
  stripe_account_issue: boolean
}

const COLUMNS = 'id, username, display_name, avatar_url, bio, social_links, created_at, stripe_account_id, stripe_account_issue'

export async function getAccountProfile(userId: string): Promise<AccountProfile | null> {
  const { data, error } = await getSupabase().from('profiles').select(COLUMNS).eq('id', userId).maybeSingle()
  if (error) throw error
  return (data as AccountProfile | null) ?? null
}

export const accountProfileQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['profiles', 'account', userId], queryFn: () => getAccountProfile(userId) })

export function useAccountProfile(userId: string | undefined) {
  return useQuery({ ...accountProfileQueryOptions(userId ?? ''), enabled: !!userId })
}
