import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { CONFIRMED_PATH } from './sign-up'

/** Sends the sign-up confirmation mail again (auth.resend); the server's 429 (too soon) comes back as an error. */
export async function resendConfirmation(email: string): Promise<void> {
  const { error } = await getSupabase().auth.resend({
    type: 'signup',
    email,
    options: { emailRedirectTo: `${window.location.origin}${CONFIRMED_PATH}` },
  })
  if (error) throw error
}

export function useResendConfirmation() {
  return useMutation({ mutationFn: resendConfirmation })
}
