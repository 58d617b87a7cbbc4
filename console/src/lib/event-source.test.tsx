import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, renderHook } from '@testing-library/react'
import { useEventStream } from './event-source'

class FakeSource {
  static all: FakeSource[] = []
  static CLOSED = 2
  readyState = 0
  onopen: (() => void) | null = null
  onerror: (() => void) | null = null
  listeners = new Map<string, (e: MessageEvent) => void>()
  closed = false
  constructor(readonly url: string) {
    FakeSource.all.push(this)
  }
  addEventListener(name: string, fn: (e: MessageEvent) => void) {
    this.listeners.set(name, fn)
  }
  removeEventListener(name: string) {
    this.listeners.delete(name)
  }
  close() {
    this.closed = true
  }
  emit(name: string, data: string) {
    this.listeners.get(name)?.(new MessageEvent(name, { data }))
  }
}

afterEach(() => {
  FakeSource.all = []
  vi.unstubAllGlobals()
})

describe('useEventStream', () => {
  it('connects, hands over parsed events, and reconnects with a new URL', () => {
    vi.stubGlobal('EventSource', FakeSource)
    const seen: unknown[] = []
    const { result, rerender, unmount } = renderHook(({ url }) => useEventStream<{ n: number }>(url, 'log', (d) => seen.push(d)), {
      initialProps: { url: '/a' as string | null },
    })
    expect(result.current).toBe('connecting')
    const first = FakeSource.all[0]
    act(() => first.onopen?.())
    expect(result.current).toBe('open')
    act(() => first.emit('log', '{"n":1}'))
    act(() => first.emit('log', 'not json'))
    expect(seen).toEqual([{ n: 1 }])

    rerender({ url: '/b' })
    expect(first.closed).toBe(true)
    // The new stream is not open until it says so.
    expect(result.current).toBe('connecting')
    act(() => FakeSource.all[1].onopen?.())
    expect(result.current).toBe('open')

    rerender({ url: null })
    expect(FakeSource.all[1].closed).toBe(true)
    expect(result.current).toBe('idle')
    unmount()
  })
})
