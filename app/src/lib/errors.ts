// What kind of failure an error from the backend client is (issue 24): "we
// could not reach the server" (or it failed on its side) is worth trying
// again and gets the retry state; a refusal (4xx: not allowed, bad input,
// no such row) is an answer, and trying again would only repeat it.
//
// The client's errors come in several shapes: PostgREST's plain
// `{ message, code, details, hint }` objects (a failed fetch reads
// `TypeError: Failed to fetch` with an empty code), auth-js's and
// storage-js's errors with a `status`, functions-js's errors with the
// Response as `context` or the fetch error as `context`, the SDK's
// PlinthFunctionError (`status` 0 when unreached), and our own
// RequestTimeoutError (lib/timed-fetch.ts).

/** What the app says when a request got no answer. */
export const UNREACHED_TEXT = "We couldn't reach the server. Check your connection and try again."

type Loose = {
  name?: unknown
  message?: unknown
  code?: unknown
  status?: unknown
  cause?: unknown
  context?: unknown
  originalError?: unknown
}

/** A request given up after REQUEST_TIMEOUT_MS. */
export class RequestTimeoutError extends Error {
  /**
   * postgrest-js re-sends a GET whose fetch threw, unless the error looks
   * like an abort: this code makes it give up at once, so a stalled server
   * costs one timeout, not four.
   */
  readonly code = 'ABORT_ERR'

  constructor(readonly ms: number) {
    super(`The server did not answer within ${Math.round(ms / 100) / 10} s`)
    this.name = 'TimeoutError'
  }
}

// postgrest-js words a failed fetch as `${error.name}: ${error.message}`.
const FETCH_FAILURE_TEXT = /^(TypeError|FetchError|TimeoutError|AbortError|NetworkError)\b/
// Names the client libraries give a request that got no answer.
const UNREACHED_NAMES = new Set(['NetworkError', 'AuthRetryableFetchError', 'FunctionsFetchError', 'FunctionsRelayError'])
// What fetch's TypeError says in Chromium, Firefox, Safari and Node; another
// TypeError is a bug, not the network.
const FETCH_TYPE_ERROR_TEXT = /fetch|network|load failed/i
// PostgREST codes and SQLSTATE classes of a failure on the server's side:
// PGRST000-003 (no database connection, pool timeout), 08 (connection),
// 40 (serialization failure, deadlock), 53 (insufficient resources),
// 57 (operator intervention: shutdown, statement timeout), 58 (system
// error), XX (internal error).
const SERVER_SIDE_CODE = /^(PGRST00[0-3]|08|40|53|57|58|XX)/

function inner(e: Loose): unknown[] {
  return [e.cause, e.context, e.originalError].filter((x) => x && typeof x === 'object')
}

/** The request was given up after REQUEST_TIMEOUT_MS. */
export function isTimeout(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false
  const e = error as Loose
  if (e.name === 'TimeoutError') return true
  if (typeof e.message === 'string' && e.message.startsWith('TimeoutError:')) return true
  return inner(e).some((x) => isTimeout(x, depth + 1))
}

/** The request got no answer at all: offline, refused, reset, timed out. */
export function isUnreached(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false
  const e = error as Loose
  if (isTimeout(e)) return true
  if (e.status === 0) return true
  if (typeof e.status === 'number') return false
  if (typeof e.name === 'string' && UNREACHED_NAMES.has(e.name)) return true
  if (e.name === 'TypeError' && typeof e.message === 'string' && FETCH_TYPE_ERROR_TEXT.test(e.message)) return true
  if (typeof e.message === 'string' && FETCH_FAILURE_TEXT.test(e.message)) return true
  return inner(e).some((x) => isUnreached(x, depth + 1))
}

/**
 * The server could not be reached, or failed on its side (5xx, a gateway's
 * error page, a transient database state): worth trying again. False for a
 * refusal (4xx, a PostgREST or SQL error of the request) and for the app's
 * own errors (a plain Error such as 'Draft not found').
 */
export function isConnectionProblem(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false
  if (isUnreached(error)) return true
  const e = error as Loose
  if (typeof e.status === 'number') return e.status >= 500 || e.status === 408 || e.status === 429
  if (typeof e.code === 'string' && e.code) return SERVER_SIDE_CODE.test(e.code)
  if (inner(e).some((x) => isConnectionProblem(x, depth + 1))) return true
  // postgrest-js answers `{ message: body }` when the body was not PostgREST's
  // JSON: a proxy's or gateway's error page (502, 503, 504).
  return !(error instanceof Error) && typeof e.message === 'string' && Object.keys(error).length === 1
}

/** Whether a failed read is tried again: connection problems only, never a refusal, never a timeout (the user has waited long enough; the retry state offers another go). */
export function shouldRetryRead(failureCount: number, error: unknown, maxRetries: number): boolean {
  return failureCount < maxRetries && isConnectionProblem(error) && !isTimeout(error)
}
