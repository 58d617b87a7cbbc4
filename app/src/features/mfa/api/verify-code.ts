// Proves a code for a factor (auth.mfa.challengeAndVerify): confirms a new
// enrolment, or raises the session to aal2 at sign-in. The auth client
// stores the aal2 session it answers with.
import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { normalizeCode } from '../validation'

export async function verifyCode(input: { factorId: string; code: string }): Promise<void> {
  const { error } = await getSupabase().auth.mfa.challengeAndVerify({
    factorId: input.factorId,
    code: normalizeCode(input.code),
  })
  if (error) throw error
}

export function useVerifyCode() {
  return useMutation({ mutationFn: verifyCode })
}
