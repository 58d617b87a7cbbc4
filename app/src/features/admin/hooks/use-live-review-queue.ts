// Keeps the admin's review queue live: while mounted it follows every change
// to `templates_pending_approval` (row-level security lets an admin see them
// all) and re-reads the queue once per burst. A re-read rather than patching
// the cached list: the list also carries the category and creator, which a
// change event does not.
import { useQueryClient } from '@tanstack/react-query'
import { LIVE_REVIEW_REREAD_MS } from '@/config/constants'
import { useTableChanges } from '@/lib/use-table-changes'
import { reviewKeys } from '../api/get-pending-review'

export function useLiveReviewQueue(enabled = true) {
  const queryClient = useQueryClient()
  useTableChanges({
    name: 'admin-review-queue',
    table: 'templates_pending_approval',
    delayMs: LIVE_REVIEW_REREAD_MS,
    enabled,
    onBurst: () => void queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  })
}
