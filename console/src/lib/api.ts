// The console's own endpoints under /_/console/api (API.md). Every call goes
// with the session cookie; writes carry `x-plinth-console: 1`. A refusal
// `{error, message}` becomes an ApiError; a 401 `not_signed_in` also tells
// the app (setUnauthorizedHandler), which shows the sign-in page.

export const API_BASE = '/_/console/api'

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  /** The whole answer's body (the SQL editor reads `position`, `detail`, ...). */
  readonly body: Record<string, unknown>

  constructor(status: number, code: string, message: string, body: Record<string, unknown> = {}) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
    this.body = body
  }
}

type Handler = () => void
let unauthorized: Handler | null = null

/** Who hears that the session is gone (the router's sign-in redirect). */
export function setUnauthorizedHandler(handler: Handler | null): void {
  unauthorized = handler
}

export function isNotSignedIn(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === 'not_signed_in'
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])

/** What a status means when the body says nothing readable. */
function fallbackMessage(status: number): string {
  if (status === 401) return 'You are not signed in.'
  if (status === 403) return 'This request was refused.'
  if (status === 404) return 'Not found.'
  if (status === 429) return 'Too many requests. Try again later.'
  if (status >= 500) return `The server failed (${status}).`
  return `The request failed (${status}).`
}

export async function api<T = unknown>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  { signal }: { signal?: AbortSignal } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (WRITES.has(method)) headers['x-plinth-console'] = '1'
  if (body !== undefined) headers['content-type'] = 'application/json'
  let response: Response
  try {
    response = await fetch(`${API_BASE}${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    })
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    throw new ApiError(0, 'network_error', 'The server cannot be reached.')
  }
  const text = await response.text()
  let parsed: unknown = null
  if (text) {
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = null
    }
  }
  if (!response.ok) {
    const obj = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {}
    const code = typeof obj.error === 'string' ? obj.error : `http_${response.status}`
    const message = typeof obj.message === 'string' && obj.message ? obj.message : fallbackMessage(response.status)
    const error = new ApiError(response.status, code, message, obj)
    if (response.status === 401 && code === 'not_signed_in') unauthorized?.()
    throw error
  }
  return parsed as T
}

export const apiGet = <T>(path: string, options?: { signal?: AbortSignal }) => api<T>('GET', path, undefined, options)

/** `?a=1&b=2` from the entries that have a value ('' when none). */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v))
  const s = q.toString()
  return s ? `?${s}` : ''
}

/** The message of anything thrown (ApiError, supabase-js errors, ...). */
export function errorMessage(error: unknown, fallback = 'Something went wrong.'): string {
  if (error && typeof error === 'object' && 'message' in error) {
    const message = (error as { message: unknown }).message
    if (typeof message === 'string' && message.trim()) return message
  }
  return fallback
}
