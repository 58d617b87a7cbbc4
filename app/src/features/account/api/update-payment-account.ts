// Back from onboarding: `/api/user/update-<provider>-account` stores the
// connected account (spec section 7).
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

export const UPDATE_FAILED = 'Could not update Stripe account. Please try again.'

export async function updatePaymentAccount(userId: string, stripeAccountId: string): Promise<void> {
  const { error } = await api.updateStripeAccount(getSupabase(), { userId, stripeAccountId })
  if (error) throw new Error(UPDATE_FAILED, { cause: error })
}

export function useUpdatePaymentAccount(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (stripeAccountId: string) => updatePaymentAccount(userId, stripeAccountId),
    onSettled: async () => {
      // A first read of the profile may still be in flight from before the
      // account was stored; invalidating alone would keep its (stale)
      // answer, so it is cancelled first and read again.
      const queryKey = ['profiles', 'account', userId]
      await queryClient.cancelQueries({ queryKey })
      await queryClient.invalidateQueries({ queryKey })
    },
  })
}
