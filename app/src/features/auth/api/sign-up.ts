import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** Where the sign-up confirmation link (and a confirmation code) lands. */
export const CONFIRMED_PATH = '/auth/confirmed'

/** Signs up with display_name and an empty avatar_url as user metadata; returns whether a session came back. */
export async function signUp(input: { email: string; password: string; displayName: string }): Promise<boolean> {
  const { data, error } = await getSupabase().auth.signUp({
    email: input.email,
    password: input.password,
    options: {
      data: { display_name: input.displayName, avatar_url: '' },
      // The confirmation link lands on a page that says the address is confirmed.
      emailRedirectTo: `${window.location.origin}${CONFIRMED_PATH}`,
    },
  })
  if (error) throw error
  return !!data.session
}

export function useSignUp() {
  return useMutation({ mutationFn: signUp })
}
