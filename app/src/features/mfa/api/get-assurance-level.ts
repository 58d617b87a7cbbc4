// The session's assurance level (auth.mfa.getAuthenticatorAssuranceLevel):
// removing a verified factor needs aal2.
import { getSupabase } from '@/lib/supabase'

export async function sessionIsAal2(): Promise<boolean> {
  const { data, error } = await getSupabase().auth.mfa.getAuthenticatorAssuranceLevel()
  if (error) throw error
  return data.currentLevel === 'aal2'
}
