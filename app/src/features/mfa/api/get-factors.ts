// The signed-in user's TOTP factors (auth.mfa.listFactors, read from the
// server's user): the verified ones, and enrolments never finished.
import { queryOptions, useQuery } from '@tanstack/react-query'
import type { Factor } from '@supabase/supabase-js'
import { getSupabase } from '@/lib/supabase'

export interface TotpFactors {
  verified: Factor[]
  unverified: Factor[]
}

export async function getFactors(): Promise<TotpFactors> {
  const { data, error } = await getSupabase().auth.mfa.listFactors()
  if (error) throw error
  const totp = data.all.filter((f) => f.factor_type === 'totp')
  return {
    verified: totp.filter((f) => f.status === 'verified'),
    unverified: totp.filter((f) => f.status !== 'verified'),
  }
}

export function factorsQueryKey(userId: string | null | undefined) {
  return ['mfa', 'factors', userId ?? null] as const
}

export function factorsQuery(userId: string | null | undefined) {
  return queryOptions({ queryKey: factorsQueryKey(userId), queryFn: getFactors, staleTime: 0 })
}

/** The factors of the user `userId` (whose session the auth client holds). */
export function useFactors(userId: string | null | undefined) {
  return useQuery({ ...factorsQuery(userId), enabled: !!userId })
}
