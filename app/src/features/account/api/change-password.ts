// Settings → Change password (auth.updateUser). The server may ask for more
// than the new password: an aal2 session when the account has a verified
// factor (`insufficient_aal`), and, when the operator turned on
// GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION and the session
// is older than a day, the nonce auth.reauthenticate() mails
// (`reauthentication_needed`).
import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export async function changePassword(input: { password: string; nonce?: string }): Promise<void> {
  const nonce = input.nonce?.replace(/\s+/g, '')
  const { error } = await getSupabase().auth.updateUser({ password: input.password, ...(nonce ? { nonce } : {}) })
  if (error) throw error
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword })
}

/** Mails the signed-in user a reauthentication code (auth.reauthenticate). */
export async function sendReauthenticationCode(): Promise<void> {
  const { error } = await getSupabase().auth.reauthenticate()
  if (error) throw error
}
