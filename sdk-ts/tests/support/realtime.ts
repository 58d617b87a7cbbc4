// What the realtime suites share: waiting for a condition, and for a
// channel's join.
import type { RealtimeChannel } from '@supabase/supabase-js'

/** Polls `check` every 20 ms until it returns a value; fails after `ms`. */
export function waitFor<T>(check: () => T | undefined, ms = 5000): Promise<T> {
  return new Promise((ok, fail) => {
    const started = Date.now()
    const tick = () => {
      const value = check()
      if (value !== undefined) return ok(value)
      if (Date.now() - started > ms) return fail(new Error('timed out'))
      setTimeout(tick, 20)
    }
    tick()
  })
}

/** Subscribes `channel`; resolves once joined, rejects on an error or a timeout. */
export function subscribed(channel: RealtimeChannel): Promise<void> {
  return new Promise((ok, fail) => {
    channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') ok()
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') fail(error ?? new Error(status))
    })
  })
}
