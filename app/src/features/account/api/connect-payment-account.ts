// The payment profile (spec section 7): `/api/<provider>/connect` answers an
// onboarding URL which the browser then follows; the provider sends the
// user back to /dashboard/settings?stripe_account={id}.
import { useMutation } from '@tanstack/react-query'
import { api } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

export const CONNECT_FAILED = 'Something went wrong. Please try again.'
export const MUST_SIGN_IN_TO_CONNECT = 'You must be logged in to connect your Stripe account.'

export async function connectPaymentAccount(userId: string): Promise<string> {
  const { data, error } = await api.stripeConnect(getSupabase(), { userId })
  if (error) throw new Error(error.status === 401 ? MUST_SIGN_IN_TO_CONNECT : CONNECT_FAILED, { cause: error })
  if (!data?.url) throw new Error(CONNECT_FAILED)
  return data.url
}

export function useConnectPaymentAccount() {
  return useMutation({ mutationFn: connectPaymentAccount })
}
