import { useMutation } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export async function signIn(input: { email: string; password: string }): Promise<void> {
  const { error } = await getSupabase().auth.signInWithPassword({ email: input.email, password: input.password })
  if (error) throw error
}

export function useSignIn() {
  return useMutation({ mutationFn: signIn })
}
