// An EventSource kept open while `url` is set, handing each `event` to onEvent
// (parsed as JSON). Its state says whether the stream of this very URL is
// connected (a stream of an earlier URL never counts).
import { useEffect, useRef, useState } from 'react'

export type StreamState = 'idle' | 'connecting' | 'open' | 'reconnecting'

export function useEventStream<T>(url: string | null, event: string, onEvent: (data: T) => void): StreamState {
  const [seen, setSeen] = useState<{ url: string | null; state: StreamState }>({ url: null, state: 'idle' })
  const handler = useRef(onEvent)
  handler.current = onEvent
  useEffect(() => {
    if (!url) return
    setSeen({ url, state: 'connecting' })
    const source = new EventSource(url)
    source.onopen = () => setSeen({ url, state: 'open' })
    source.onerror = () => setSeen({ url, state: source.readyState === EventSource.CLOSED ? 'idle' : 'reconnecting' })
    const listener = (e: MessageEvent<string>) => {
      try {
        handler.current(JSON.parse(e.data) as T)
      } catch {
        // not JSON: ignored
      }
    }
    source.addEventListener(event, listener as EventListener)
    return () => {
      source.removeEventListener(event, listener as EventListener)
      source.close()
    }
  }, [url, event])
  if (!url) return 'idle'
  return seen.url === url ? seen.state : 'connecting'
}
