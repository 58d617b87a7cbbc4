import { afterEach, describe, expect, it, vi } from 'vitest'
import { api, ApiError, apiGet, errorMessage, isNotSignedIn, query, setUnauthorizedHandler } from './api'
import { mockFetch } from '@/testing/fetch'

afterEach(() => setUnauthorizedHandler(null))

describe('the console API client', () => {
  it('sends the cookie on every call and the console header on writes only', async () => {
    const fetch = mockFetch({ status: 200, body: { ok: 1 } }, { status: 200, body: { users: [] } })
    await api('POST', '/sql', { query: 'select 1', read_only: false })
    await apiGet('/users?q=a')
    const [url, post] = fetch.mock.calls[0]
    expect(url).toBe('/_/console/api/sql')
    expect(post?.credentials).toBe('same-origin')
    expect(post?.method).toBe('POST')
    expect((post?.headers as Record<string, string>)['x-plinth-console']).toBe('1')
    expect((post?.headers as Record<string, string>)['content-type']).toBe('application/json')
    expect(post?.body).toBe('{"query":"select 1","read_only":false}')
    const [getUrl, get] = fetch.mock.calls[1]
    expect(getUrl).toBe('/_/console/api/users?q=a')
    expect(get?.credentials).toBe('same-origin')
    expect((get?.headers as Record<string, string>)['x-plinth-console']).toBeUndefined()
  })

  it('answers null for 204', async () => {
    mockFetch({ status: 204 })
    await expect(api('DELETE', '/session')).resolves.toBeNull()
  })

  it('turns {error, message} into an ApiError that keeps the whole body', async () => {
    mockFetch({ status: 400, body: { error: 'sql_error', message: 'relation "x" does not exist', code: '42P01', position: 15 } })
    const error = await api('POST', '/sql', { query: 'select * from x' }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ApiError)
    expect(error).toMatchObject({ status: 400, code: 'sql_error', message: 'relation "x" does not exist' })
    expect((error as ApiError).body.position).toBe(15)
  })

  it('names a refusal without a JSON body by its status', async () => {
    mockFetch({ status: 502, body: '<html>bad gateway</html>' })
    await expect(apiGet('/health')).rejects.toMatchObject({ status: 502, code: 'http_502', message: 'The server failed (502).' })
  })

  it('sends the app to sign-in on 401 not_signed_in, and only then', async () => {
    const handler = vi.fn()
    setUnauthorizedHandler(handler)
    mockFetch(
      { status: 401, body: { error: 'invalid_credentials', message: 'Wrong e-mail or password' } },
      { status: 401, body: { error: 'not_signed_in', message: 'Sign in first' } },
    )
    const refused = await api('POST', '/session', { email: 'a', password: 'b' }).catch((e: unknown) => e)
    expect(isNotSignedIn(refused)).toBe(false)
    expect(handler).not.toHaveBeenCalled()
    const lost = await apiGet('/users').catch((e: unknown) => e)
    expect(isNotSignedIn(lost)).toBe(true)
    expect(handler).toHaveBeenCalledTimes(1)
  })

  it('reports a network failure as such', async () => {
    vi.spyOn(globalThis, 'fetch').mockRejectedValue(new TypeError('Failed to fetch'))
    await expect(apiGet('/health')).rejects.toMatchObject({ status: 0, code: 'network_error' })
  })

  it('builds query strings from the set values only', () => {
    expect(query({ q: 'ada', provider: '', status: undefined, page: 2 })).toBe('?q=ada&page=2')
    expect(query({ q: '' })).toBe('')
    expect(errorMessage(new Error('boom'))).toBe('boom')
    expect(errorMessage(42, 'fallback')).toBe('fallback')
  })
})
