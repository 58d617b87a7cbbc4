// Upvote or remove the upvote; the count on the page moves by one at once.
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError } from '@/lib/toast'
import type { Template } from '@/lib/types'
import { userUpvoteQueryOptions } from './get-user-upvote'
import { templateQueryOptions } from './get-template'

export async function toggleUpvote(templateId: string, userId: string, upvoted: boolean): Promise<boolean> {
  const table = getSupabase().from('template_upvotes')
  const { error } = upvoted
    ? await table.delete().eq('template_id', templateId).eq('user_id', userId)
    : await table.insert({ template_id: templateId, user_id: userId })
  if (error) throw error
  return !upvoted
}

/** Names the toggle in flight, which the live count waits for (hooks/use-live-upvote-count). */
export const toggleUpvoteMutationKey = (templateId: string) => ['templates', 'toggle-upvote', templateId] as const

export function useToggleUpvote(templateId: string, userId: string) {
  const queryClient = useQueryClient()
  const flagKey = userUpvoteQueryOptions(templateId, userId).queryKey
  const detailKey = templateQueryOptions(templateId).queryKey
  return useMutation({
    mutationKey: toggleUpvoteMutationKey(templateId),
    mutationFn: (upvoted: boolean) => toggleUpvote(templateId, userId, upvoted),
    onSuccess: (now) => {
      queryClient.setQueryData(flagKey, now)
      queryClient.setQueryData(detailKey, (t: Template | null | undefined) =>
        t ? { ...t, upvote_count: Math.max(0, t.upvote_count + (now ? 1 : -1)) } : t,
      )
      void queryClient.invalidateQueries({ queryKey: ['templates', 'trending'] })
    },
    onError: () => toastError('Failed to update upvote'),
  })
}
