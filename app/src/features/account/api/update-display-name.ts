// The display name is written to the profile and to the auth user's metadata
// (spec section 7), which the header falls back to.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { toastError, toastSuccess } from '@/lib/toast'
import { displayNameError } from '../validation'

export async function updateDisplayName(userId: string, displayName: string): Promise<string> {
  const name = displayName.trim()
  const invalid = displayNameError(name)
  if (invalid) throw new Error(invalid)
  const supabase = getSupabase()
  const { error } = await supabase
    .from('profiles')
    .update({ display_name: name, updated_at: new Date().toISOString() })
    .eq('id', userId)
  if (error) throw error
  // The profile is what everyone sees: a failed metadata copy is only logged.
  const meta = await supabase.auth.updateUser({ data: { display_name: name } })
  if (meta.error) logQuiet('copying the display name to the auth user', meta.error)
  return name
}

export function useUpdateDisplayName(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (displayName: string) => updateDisplayName(userId, displayName),
    onSuccess: () => {
      toastSuccess('Display name updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['profiles'] })
    },
    // Not worded by the spec; follows its 'Failed to update bio'.
    onError: () => toastError('Failed to update display name'),
  })
}
