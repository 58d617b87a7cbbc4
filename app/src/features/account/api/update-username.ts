// Sets the username, once: the rules are checked first, then that no other
// profile has it; the server enforces both again (unique column, and a
// trigger refusing a change once set).
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import { USERNAME_TAKEN_MESSAGE, usernameError } from '../validation'
import { isUsernameTaken } from './is-username-taken'

/** A refusal the user can act on: shown beside the field. */
export class UsernameRejected extends Error {}

export async function updateUsername(userId: string, username: string): Promise<string> {
  const invalid = usernameError(username)
  if (invalid) throw new UsernameRejected(invalid)
  if (await isUsernameTaken(username, userId)) throw new UsernameRejected(USERNAME_TAKEN_MESSAGE)
  const { error } = await getSupabase()
    .from('profiles')
    .update({ username, updated_at: new Date().toISOString() })
    .eq('id', userId)
  if (error) {
    // Taken between the check and the write.
    if (error.code === '23505') throw new UsernameRejected(USERNAME_TAKEN_MESSAGE)
    throw error
  }
  return username
}

export function useUpdateUsername(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (username: string) => updateUsername(userId, username),
    onSuccess: () => {
      toastSuccess('Username updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['profiles'] })
    },
    onError: (error) => {
      // The spec words no failure toast for the username; this follows its
      // 'Failed to update bio'.
      if (!(error instanceof UsernameRejected)) toastError('Failed to update username')
    },
  })
}
