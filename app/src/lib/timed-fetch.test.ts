import { afterEach, describe, expect, it, vi } from 'vitest'
import { REQUEST_TIMEOUT_MS } from '@/config/constants'
import { RequestTimeoutError } from './errors'
import { requestTimeoutMs, retryAfterMs, timedFetch } from './timed-fetch'

/** A fetch that never answers until its signal aborts (then rejects with the reason, as browsers do). */
function stalled(calls: RequestInit[] = []): typeof fetch {
  return (_input, init) => {
    calls.push(init ?? {})
    return new Promise((_resolve, reject) => {
      const signal = init?.signal
      signal?.addEventListener('abort', () => reject(signal.reason))
    })
  }
}

afterEach(() => {
  delete window.__plinthRequestTimeoutMs
})

describe('timedFetch', () => {
  it('gives up a request that gets no answer within the time limit', async () => {
    vi.useFakeTimers()
    const fetch = timedFetch(stalled())
    const answer = fetch('http://localhost/rest/v1/templates').catch((e: unknown) => e)
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1)
    let settled = false
    void answer.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const error = await answer
    expect(error).toBeInstanceOf(RequestTimeoutError)
    expect((error as RequestTimeoutError).name).toBe('TimeoutError')
  })

  it('passes an answer through and lets the caller abort', async () => {
    const ok = timedFetch(async () => new Response('[]', { status: 200 }))
    expect((await ok('http://localhost/x')).status).toBe(200)

    const caller = new AbortController()
    const pending = timedFetch(stalled())('http://localhost/x', { signal: caller.signal }).catch((e: unknown) => e)
    caller.abort(new Error('left the page'))
    expect(String(await pending)).toContain('left the page')
  })

  it('does not limit a file upload', async () => {
    vi.useFakeTimers()
    const calls: RequestInit[] = []
    const fetch = timedFetch(stalled(calls))
    let settled = false
    void fetch('http://localhost/storage/v1/object/templates/a.zip', { method: 'POST', body: new Blob(['x']) })
      .catch(() => {})
      .finally(() => (settled = true))
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS * 2)
    expect(settled).toBe(false)
    expect(calls[0].signal).toBeUndefined()
  })

  it('honours a lower limit set on the page, never a higher one', () => {
    expect(requestTimeoutMs()).toBe(REQUEST_TIMEOUT_MS)
    window.__plinthRequestTimeoutMs = 1500
    expect(requestTimeoutMs()).toBe(1500)
    window.__plinthRequestTimeoutMs = REQUEST_TIMEOUT_MS * 10
    expect(requestTimeoutMs()).toBe(REQUEST_TIMEOUT_MS)
    window.__plinthRequestTimeoutMs = '50'
    expect(requestTimeoutMs()).toBe(REQUEST_TIMEOUT_MS)
    window.__plinthRequestTimeoutMs = 5
    expect(requestTimeoutMs()).toBe(REQUEST_TIMEOUT_MS)
  })

  it("waits out a short Retry-After of a 503 to a read once, and returns a long one's 503", async () => {
    vi.useFakeTimers()
    const answers = [
      new Response('', { status: 503, headers: { 'Retry-After': '2' } }),
      new Response('[1]', { status: 200 }),
    ]
    const base = vi.fn(async () => answers.shift()!)
    const answer = timedFetch(base)('http://localhost/rest/v1/templates')
    await vi.advanceTimersByTimeAsync(2000)
    expect((await answer).status).toBe(200)
    expect(base).toHaveBeenCalledTimes(2)

    const long = vi.fn(async () => new Response('', { status: 503, headers: { 'Retry-After': '120' } }))
    expect((await timedFetch(long)('http://localhost/rest/v1/templates')).status).toBe(503)
    expect(long).toHaveBeenCalledTimes(1)

    // A write is never sent twice.
    const write = vi.fn(async () => new Response('', { status: 503, headers: { 'Retry-After': '1' } }))
    expect((await timedFetch(write)('http://localhost/rest/v1/templates', { method: 'POST', body: '{}' })).status).toBe(503)
    expect(write).toHaveBeenCalledTimes(1)
  })

  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('3')).toBe(3000)
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000)
    expect(retryAfterMs('soon')).toBeNull()
    expect(retryAfterMs(null)).toBeNull()
  })
})
