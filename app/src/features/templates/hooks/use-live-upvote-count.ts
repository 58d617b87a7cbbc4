// Keeps the upvote count of an open template page live. While mounted it
// subscribes (realtime postgres_changes) to the template's upvote rows; each
// burst of changes leads to one re-read of the count into the template's
// detail cache entry, the one the page reads it from. Re-reading rather than
// adding one keeps the user's own upvote from being counted twice: its toggle
// already moved the count, and the re-read waits while the toggle is in flight.
import { useEffect } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { LIVE_UPVOTE_REREAD_MS } from '@/config/constants'
import { refreshUpvoteCount } from '../api/refresh-upvote-count'
import { toggleUpvoteMutationKey } from '../api/toggle-upvote'

// Each subscription gets a topic of its own: the client hands back an existing
// channel of the same topic, and one still being removed (StrictMode's second
// effect run, a quick back-and-forth) cannot take new bindings.
let subscriptions = 0

export function useLiveUpvoteCount(templateId: string, enabled: boolean) {
  const queryClient = useQueryClient()
  useEffect(() => {
    if (!enabled) return
    const supabase = getSupabase()
    let active = true
    let joined = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const scheduleReread = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        if (!active) return
        if (queryClient.isMutating({ mutationKey: toggleUpvoteMutationKey(templateId) }) > 0) {
          scheduleReread()
          return
        }
        refreshUpvoteCount(queryClient, templateId).catch((error: unknown) => logQuiet('re-reading the upvote count', error))
      }, LIVE_UPVOTE_REREAD_MS)
    }
    subscriptions += 1
    const channel = supabase
      .channel(`template-upvotes:${templateId}:${subscriptions}`)
      .on(
        'postgres_changes',
        { event: '*', schema: 'public', table: 'template_upvotes', filter: `template_id=eq.${templateId}` },
        scheduleReread,
      )
      .subscribe((status, error) => {
        if (status === 'SUBSCRIBED') {
          // A rejoin (after a lost connection) may have missed changes.
          if (joined) scheduleReread()
          joined = true
        } else if (status === 'CHANNEL_ERROR') {
          logQuiet('following upvotes live', error)
        }
      })
    return () => {
      active = false
      clearTimeout(timer)
      void supabase.removeChannel(channel)
    }
  }, [templateId, enabled, queryClient])
}
