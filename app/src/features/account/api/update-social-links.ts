import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import type { SocialKey } from '../constants'

export type SocialLinks = Partial<Record<SocialKey, string>>

/** Stores the links, trimmed; an emptied field removes its key. */
export async function updateSocialLinks(userId: string, links: SocialLinks): Promise<SocialLinks> {
  const clean: SocialLinks = {}
  for (const [key, value] of Object.entries(links) as Array<[SocialKey, string | undefined]>) {
    const text = value?.trim()
    if (text) clean[key] = text
  }
  const { error } = await getSupabase()
    .from('profiles')
    .update({ social_links: clean, updated_at: new Date().toISOString() })
    .eq('id', userId)
  if (error) throw error
  return clean
}

export function useUpdateSocialLinks(userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (links: SocialLinks) => updateSocialLinks(userId, links),
    onSuccess: () => {
      toastSuccess('Social links updated successfully')
      void queryClient.invalidateQueries({ queryKey: ['profiles'] })
    },
    // Not worded by the spec; follows its 'Failed to update bio'.
    onError: () => toastError('Failed to update social links'),
  })
}
