// The creator's payout status at the payment provider: whether their
// connected account can take charges and receive payouts, what is still due,
// the balance and recent payouts (`POST /api/stripe/payout-status`).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { api, type PayoutStatusResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

export async function getPayoutStatus(userId: string): Promise<PayoutStatusResponse> {
  const { data, error } = await api.payoutStatus(getSupabase(), { userId })
  if (error) throw error
  return data
}

export const payoutStatusQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['sales', userId, 'payout-status'], queryFn: () => getPayoutStatus(userId) })

export function usePayoutStatus(userId: string) {
  return useQuery(payoutStatusQueryOptions(userId))
}
