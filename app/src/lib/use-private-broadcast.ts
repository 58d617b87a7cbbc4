// Follows one event of a private channel (realtime broadcast) while
// `enabled`, and calls `onMessage` with each message's payload. Joining a
// private channel is decided by the server's policies on realtime.messages
// for the signed-in user, whose access token the client sends with the join;
// a refused join is logged quietly, as other live data is.
//
// The join carries the token realtime holds at that moment, and supabase-js
// hands realtime a new session's token only when it announces the session:
// a session read from the URL (the e-mail confirmation link, a magic link,
// a password-reset link) is stored first and announced a moment later, so a
// join made in between went as the anonymous role and was refused ("You do
// not have permissions to read from this Channel topic"). So the session's
// token is set on realtime (`realtime.setAuth()` reads it from the auth
// client) before each join.
//
// A private topic names what it is about (e.g. `creator:{user id}`), so it
// cannot be made unique per subscription as `useTableChanges` does: the
// client hands back an existing channel of the same topic, and one still
// being left (StrictMode's second effect run, a sign-out and sign-in) cannot
// join again. A subscription therefore starts only once the previous one of
// its topic has been removed.
import { useEffect, useRef } from 'react'
import type { RealtimeChannel } from '@supabase/supabase-js'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface PrivateBroadcast {
  /** The channel's name, e.g. `creator:{user id}`. */
  topic: string
  event: string
  enabled: boolean
  onMessage: (payload: Record<string, unknown>) => void
}

/** Per topic, the removal of its latest subscription. */
const removals = new Map<string, Promise<unknown>>()

export function usePrivateBroadcast({ topic, event, enabled, onMessage }: PrivateBroadcast) {
  const latest = useRef(onMessage)
  latest.current = onMessage
  useEffect(() => {
    if (!enabled) return
    const supabase = getSupabase()
    let active = true
    let channel: RealtimeChannel | null = null
    const previous = removals.get(topic) ?? Promise.resolve()
    const joined = previous
      .then(() => (active ? supabase.realtime.setAuth() : undefined))
      .catch((error: unknown) => logQuiet(`reading the session for ${topic}`, error))
      .then(() => {
        if (!active) return
        channel = supabase
          .channel(topic, { config: { private: true } })
          .on('broadcast', { event }, (message: { payload?: unknown }) => {
            const payload = message.payload
            if (active && payload && typeof payload === 'object') latest.current(payload as Record<string, unknown>)
          })
          .subscribe((status, error) => {
            if (status === 'CHANNEL_ERROR') logQuiet(`following ${topic}`, error)
          })
      })
    return () => {
      active = false
      const removal = joined
        .then(() => (channel ? supabase.removeChannel(channel) : undefined))
        .catch((error: unknown) => logQuiet(`leaving ${topic}`, error))
      removals.set(topic, removal)
      void removal.then(() => {
        if (removals.get(topic) === removal) removals.delete(topic)
      })
    }
  }, [topic, event, enabled])
}
