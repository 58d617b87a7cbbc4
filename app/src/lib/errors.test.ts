import { describe, expect, it } from 'vitest'
import { PlinthFunctionError } from '@plinth/sdk'
import { isConnectionProblem, isTimeout, isUnreached, RequestTimeoutError, shouldRetryRead } from './errors'
import { errorText } from './toast'

// The shapes the client libraries give their errors (see errors.ts).
const postgrestFetchFailure = { message: 'TypeError: Failed to fetch', details: '', hint: '', code: '' }
const postgrestTimeout = { message: 'TimeoutError: The server did not answer within 15 s', details: '', hint: 'Request was aborted', code: '' }
const gatewayPage = { message: '<html>502 Bad Gateway</html>' }
const rlsRefusal = { message: 'new row violates row-level security policy', code: '42501', details: null, hint: null }
const notAUuid = { message: 'invalid input syntax for type uuid', code: '22P02', details: null, hint: null }
const noDatabase = { message: 'Database client error', code: 'PGRST000', details: null, hint: null }
const statementTimeout = { message: 'canceling statement due to statement timeout', code: '57014', details: null, hint: null }

describe('error kinds', () => {
  it('knows a request that got no answer', () => {
    expect(isUnreached(postgrestFetchFailure)).toBe(true)
    expect(isUnreached(new TypeError('Failed to fetch'))).toBe(true)
    expect(isUnreached(new RequestTimeoutError(15_000))).toBe(true)
    expect(isUnreached(new PlinthFunctionError('request failed', 0, null))).toBe(true)
    expect(isUnreached(Object.assign(new Error('Failed to fetch'), { name: 'AuthRetryableFetchError', status: 0 }))).toBe(true)
    // A function whose fetch threw: functions-js keeps the fetch error as its context.
    expect(isUnreached(Object.assign(new Error('Failed to send a request'), { name: 'FunctionsFetchError', context: new TypeError('Failed to fetch') }))).toBe(true)
    // An error that names its cause (createFreeOrder keeps the SDK's).
    expect(isUnreached(new Error('Something went wrong', { cause: new PlinthFunctionError('x', 0, null) }))).toBe(true)
  })

  it('does not take an answer or a bug for the network', () => {
    expect(isUnreached(rlsRefusal)).toBe(false)
    expect(isUnreached(new PlinthFunctionError('refused', 403, null))).toBe(false)
    expect(isUnreached(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false)
    expect(isUnreached(new Error('Draft not found'))).toBe(false)
    expect(isUnreached(null)).toBe(false)
    expect(isUnreached('Failed to fetch')).toBe(false)
  })

  it('counts server-side failures as connection problems, refusals not', () => {
    expect(isConnectionProblem(postgrestFetchFailure)).toBe(true)
    expect(isConnectionProblem(gatewayPage)).toBe(true)
    expect(isConnectionProblem(noDatabase)).toBe(true)
    expect(isConnectionProblem(statementTimeout)).toBe(true)
    expect(isConnectionProblem(new PlinthFunctionError('unavailable', 503, null))).toBe(true)
    expect(isConnectionProblem(new PlinthFunctionError('slow down', 429, null))).toBe(true)
    // functions-js: a non-2xx answer carries the Response as its context.
    expect(isConnectionProblem(Object.assign(new Error('non-2xx'), { name: 'FunctionsHttpError', context: new Response('', { status: 500 }) }))).toBe(true)
    expect(isConnectionProblem(Object.assign(new Error('non-2xx'), { name: 'FunctionsHttpError', context: new Response('', { status: 404 }) }))).toBe(false)
    expect(isConnectionProblem(rlsRefusal)).toBe(false)
    expect(isConnectionProblem(notAUuid)).toBe(false)
    expect(isConnectionProblem(Object.assign(new Error('Invalid login credentials'), { status: 400 }))).toBe(false)
    expect(isConnectionProblem(new Error('Draft not found'))).toBe(false)
  })

  it('knows a timeout in each shape', () => {
    expect(isTimeout(new RequestTimeoutError(1500))).toBe(true)
    expect(isTimeout(postgrestTimeout)).toBe(true)
    expect(isTimeout(postgrestFetchFailure)).toBe(false)
    expect(new RequestTimeoutError(1500).message).toBe('The server did not answer within 1.5 s')
  })

  it('retries a read only for a connection problem, at most the given times, never after a timeout', () => {
    expect(shouldRetryRead(0, postgrestFetchFailure, 2)).toBe(true)
    expect(shouldRetryRead(1, gatewayPage, 2)).toBe(true)
    expect(shouldRetryRead(2, postgrestFetchFailure, 2)).toBe(false)
    expect(shouldRetryRead(0, rlsRefusal, 2)).toBe(false)
    expect(shouldRetryRead(0, postgrestTimeout, 2)).toBe(false)
  })

  it('words an unreached server in plain words, other errors by their own text', () => {
    expect(errorText(postgrestFetchFailure, 'fallback')).toBe("We couldn't reach the server. Check your connection and try again.")
    expect(errorText(new Error('Invalid login credentials'), 'fallback')).toBe('Invalid login credentials')
    expect(errorText({}, 'fallback')).toBe('fallback')
  })
})
