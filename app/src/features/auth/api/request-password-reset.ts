import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** Where the recovery link lands: the new-password screen. */
export const RESET_PASSWORD_PATH = '/auth/reset-password'

/**
 * Asks for a password-reset e-mail (auth.resetPasswordForEmail). The server
 * answers the same whether or not the address has an account; a 429 (asked
 * again too soon, or too many mails) comes back as an error with its message.
 */
export async function requestPasswordReset(email: string): Promise<void> {
  const { error } = await getSupabase().auth.resetPasswordForEmail(email, {
    redirectTo: `${window.location.origin}${RESET_PASSWORD_PATH}`,
  })
  if (error) throw error
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: requestPasswordReset })
}
