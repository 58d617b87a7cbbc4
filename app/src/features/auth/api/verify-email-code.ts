import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/**
 * The six-digit code an auth e-mail carries besides its link ("Or enter
 * this code"), proved with auth.verifyOtp: 'signup' confirms the address,
 * 'recovery' signs in to set a new password. Either answers a session,
 * which the auth client stores.
 */
export async function verifyEmailCode(input: { email: string; code: string; type: 'signup' | 'recovery' }): Promise<void> {
  const { error } = await getSupabase().auth.verifyOtp({
    email: input.email,
    token: input.code.replace(/\s+/g, ''),
    type: input.type,
  })
  if (error) throw error
}

export function useVerifyEmailCode() {
  return useMutation({ mutationFn: verifyEmailCode })
}
