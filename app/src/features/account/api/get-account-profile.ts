// The signed-in user's own profile with everything the account screens edit
// or show (payment account included). Its key starts with 'profiles', so the
// profile mutations that invalidate ['profiles'] refresh it too.
//
// The payment account is not a column of the public profile (the spec lists
// stripe_account_id among a profile's fields): everyone reads profiles, and
// the account id is its owner's business only. It is kept in
// `payment_accounts`, which only its owner reads
// (migrations/20261124000300_payment_accounts.sql), and merged in here.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Profile } from '@/lib/types'

export interface AccountProfile extends Profile {
  stripe_account_id: string | null
  stripe_account_issue: boolean
}

const COLUMNS = 'id, username, display_name, avatar_url, bio, social_links, created_at'

export async function getAccountProfile(userId: string): Promise<AccountProfile | null> {
  const supabase = getSupabase()
  const [profile, account] = await Promise.all([
    supabase.from('profiles').select(COLUMNS).eq('id', userId).maybeSingle(),
    supabase.from('payment_accounts').select('stripe_account_id, stripe_account_issue').eq('user_id', userId).maybeSingle(),
  ])
  if (profile.error) throw profile.error
  if (account.error) throw account.error
  if (!profile.data) return null
  return {
    ...(profile.data as Profile),
    stripe_account_id: account.data?.stripe_account_id ?? null,
    stripe_account_issue: account.data?.stripe_account_issue ?? false,
  }
}

export const accountProfileQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['profiles', 'account', userId], queryFn: () => getAccountProfile(userId) })

export function useAccountProfile(userId: string | undefined) {
  return useQuery({ ...accountProfileQueryOptions(userId ?? ''), enabled: !!userId })
}
