// Keeps the upvote count of an open template page live. While mounted it
// follows the template's upvote rows; each burst of changes leads to one
// re-read of the count into the template's detail cache entry, the one the
// page reads it from. Re-reading rather than adding one keeps the user's own
// upvote from being counted twice: its toggle already moved the count, and the
// re-read waits while the toggle is in flight.
import { useQueryClient } from '@tanstack/react-query'
import { logQuiet } from '@/lib/log'
import { useTableChanges } from '@/lib/use-table-changes'
import { LIVE_UPVOTE_REREAD_MS } from '@/config/constants'
import { refreshUpvoteCount } from '../api/refresh-upvote-count'
import { toggleUpvoteMutationKey } from '../api/toggle-upvote'

export function useLiveUpvoteCount(templateId: string, enabled: boolean) {
  const queryClient = useQueryClient()
  useTableChanges({
    name: `template-upvotes:${templateId}`,
    table: 'template_upvotes',
    filter: `template_id=eq.${templateId}`,
    delayMs: LIVE_UPVOTE_REREAD_MS,
    enabled,
    onBurst: (later) => {
      if (queryClient.isMutating({ mutationKey: toggleUpvoteMutationKey(templateId) }) > 0) {
        later()
        return
      }
      refreshUpvoteCount(queryClient, templateId).catch((error: unknown) => logQuiet('re-reading the upvote count', error))
    },
  })
}
