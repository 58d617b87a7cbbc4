// Keeps the admin's review queue live: while mounted it follows every change
// to `templates_pending_approval` (realtime postgres_changes; row-level
// security lets an admin see them all) and re-reads the queue once per burst.
// A re-read rather than patching the cached list: the list also carries the
// category and creator, which a change event does not.
import { useEffect } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { LIVE_REVIEW_REREAD_MS } from '@/config/constants'
import { reviewKeys } from '../api/get-pending-review'

// One topic per subscription: a channel of the same topic still being
// removed (StrictMode's second effect run) cannot take new bindings.
let subscriptions = 0

export function useLiveReviewQueue(enabled = true) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!enabled) return
    const supabase = getSupabase()
    let active = true
    let joined = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const reread = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        if (active) void queryClient.invalidateQueries({ queryKey: reviewKeys.all })
      }, LIVE_REVIEW_REREAD_MS)
    }
    subscriptions += 1
    const channel = supabase
      .channel(`admin-review-queue:${subscriptions}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'templates_pending_approval' }, reread)
      .subscribe((status, error) => {
        if (status === 'SUBSCRIBED') {
          // A rejoin after a lost connection may have missed changes.
          if (joined) reread()
          joined = true
        } else if (status === 'CHANNEL_ERROR') {
          logQuiet('following the review queue live', error)
        }
      })
    return () => {
      active = false
      clearTimeout(timer)
      void supabase.removeChannel(channel)
    }
  }, [enabled, queryClient])
}
