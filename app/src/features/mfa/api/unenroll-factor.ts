// Removes a factor (auth.mfa.unenroll); a verified one needs an aal2 session.
import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export async function unenrollFactor(factorId: string): Promise<void> {
  const { error } = await getSupabase().auth.mfa.unenroll({ factorId })
  if (error) throw error
}

export function useUnenrollFactor() {
  return useMutation({ mutationFn: unenrollFactor })
}
