// The backend client's fetch (issue 24): a request that gets no answer
// within REQUEST_TIMEOUT_MS is given up with a RequestTimeoutError, so that a
// stalled server turns into an error and the screen's retry state, never an
// endless spinner. Also waits out a short Retry-After of a 503 to a read once.
//
// - The time limit runs until the response's headers arrive (reading the
//   body is not limited; the app's bodies are small JSON). A caller's own
//   signal still aborts the request.
// - File uploads (a Blob, FormData, ArrayBuffer or stream body) are not
//   limited: their time grows with their size and the connection.
// - `window.__plinthRequestTimeoutMs` may LOWER the limit for one page (the
//   browser walk `e2e/walks/resilience.mjs` sets it to see a timeout without
//   waiting 15 s). Only a script already running in the page can set it, and
//   it can only make requests give up sooner, so it is harmless in production.
import { MAX_RETRY_AFTER_MS, REQUEST_TIMEOUT_MS } from '@/config/constants'
import { RequestTimeoutError } from './errors'

declare global {
  interface Window {
    /** A lower request time limit for this page, in ms (tests only; see above). */
    __plinthRequestTimeoutMs?: unknown
  }
}

const MIN_OVERRIDE_MS = 100

/** The time limit in force: REQUEST_TIMEOUT_MS, or a lower one the page set. */
export function requestTimeoutMs(): number {
  const override = typeof window === 'undefined' ? undefined : window.__plinthRequestTimeoutMs
  if (typeof override === 'number' && Number.isFinite(override) && override >= MIN_OVERRIDE_MS && override < REQUEST_TIMEOUT_MS) {
    return override
  }
  return REQUEST_TIMEOUT_MS
}

function isFileBody(body: unknown): boolean {
  if (!body || typeof body === 'string' || body instanceof URLSearchParams) return false
  return (
    (typeof Blob !== 'undefined' && body instanceof Blob) ||
    (typeof FormData !== 'undefined' && body instanceof FormData) ||
    body instanceof ArrayBuffer ||
    ArrayBuffer.isView(body) ||
    (typeof ReadableStream !== 'undefined' && body instanceof ReadableStream)
  )
}

/** A Retry-After header in ms (seconds or an HTTP date), or null. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** `base` with the time limit and the Retry-After wait described above. */
export function timedFetch(base: typeof fetch = (input, init) => fetch(input, init)): typeof fetch {
  const once = async (input: RequestInfo | URL, init: RequestInit | undefined): Promise<Response> => {
    const ms = requestTimeoutMs()
    const controller = new AbortController()
    const outer = init?.signal ?? null
    const forward = () => controller.abort(outer?.reason)
    if (outer?.aborted) forward()
    else outer?.addEventListener('abort', forward, { once: true })
    const timer = setTimeout(() => controller.abort(new RequestTimeoutError(ms)), ms)
    try {
      return await base(input, { ...init, signal: controller.signal })
    } finally {
      clearTimeout(timer)
      outer?.removeEventListener('abort', forward)
    }
  }

  return async (input, init) => {
    if (isFileBody(init?.body)) return base(input, init)
    const response = await once(input, init)
    const method = (init?.method ?? 'GET').toUpperCase()
    if (response.status !== 503 || (method !== 'GET' && method !== 'HEAD')) return response
    const wait = retryAfterMs(response.headers.get('Retry-After'))
    // No hint, or longer than is worth a spinner: the 503 is the answer, and
    // the screen offers "Try again".
    if (wait === null || wait > MAX_RETRY_AFTER_MS) return response
    await response.body?.cancel().catch(() => {})
    await sleep(wait)
    init?.signal?.throwIfAborted()
    return once(input, init)
  }
}
