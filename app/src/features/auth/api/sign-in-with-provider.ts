import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** The two social providers the auth page may offer (those the server has enabled). */
export const SOCIAL_PROVIDERS = [
  { id: 'google', label: 'Google' },
  { id: 'github', label: 'GitHub' },
] as const
export type SocialProvider = (typeof SOCIAL_PROVIDERS)[number]['id']

/** Redirects to the provider through the auth authorize endpoint, back to the site root. */
export async function signInWithProvider(provider: SocialProvider): Promise<void> {
  const { error } = await getSupabase().auth.signInWithOAuth({
    provider,
    options: { redirectTo: `${window.location.origin}/` },
  })
  if (error) throw error
}

export function useSignInWithProvider() {
  return useMutation({ mutationFn: signInWithProvider })
}
