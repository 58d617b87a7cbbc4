// Follows a table's row changes (realtime postgres_changes) while a screen is
// open, and calls `onBurst` once per burst of them: once `delayMs` has passed
// without another change. A rejoin after a lost connection counts as a burst,
// since changes may have been missed meanwhile. `onBurst` may ask to be called
// again after another delay (`later()`), e.g. while a write of its own is in
// flight.
import { useEffect, useRef } from 'react'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface TableChanges {
  /** What the subscription is for, in the channel's topic and in logs. */
  name: string
  table: string
  /** A `column=eq.value` filter, as the realtime client takes it. */
  filter?: string
  delayMs: number
  enabled: boolean
  onBurst: (later: () => void) => void
}

// Each subscription gets a topic of its own: the client hands back an existing
// channel of the same topic, and one still being removed (StrictMode's second
// effect run, a quick back-and-forth) cannot take new bindings.
let subscriptions = 0

export function useTableChanges({ name, table, filter, delayMs, enabled, onBurst }: TableChanges) {
  const latest = useRef(onBurst)
  latest.current = onBurst
  useEffect(() => {
    if (!enabled) return
    const supabase = getSupabase()
    let active = true
    let joined = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const schedule = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        if (active) latest.current(schedule)
      }, delayMs)
    }
    subscriptions += 1
    const channel = supabase
      .channel(`${name}:${subscriptions}`)
      .on('postgres_changes', { event: '*', schema: 'public', table, ...(filter ? { filter } : {}) }, schedule)
      .subscribe((status, error) => {
        if (status === 'SUBSCRIBED') {
          if (joined) schedule()
          joined = true
        } else if (status === 'CHANNEL_ERROR') {
          logQuiet(`following ${name} live`, error)
        }
      })
    return () => {
      active = false
      clearTimeout(timer)
      void supabase.removeChannel(channel)
    }
  }, [name, table, filter, delayMs, enabled])
}
