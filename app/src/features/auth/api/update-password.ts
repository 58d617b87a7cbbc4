import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/**
 * Sets the signed-in user's new password (auth.updateUser). The server
 * refuses a weak or unchanged password (its message is shown), and with a
 * verified factor wants an aal2 session (`insufficient_aal`).
 */
export async function updatePassword(password: string): Promise<void> {
  const { error } = await getSupabase().auth.updateUser({ password })
  if (error) throw error
}

export function useUpdatePassword() {
  return useMutation({ mutationFn: updatePassword })
}
