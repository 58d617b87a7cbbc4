// Issue 15, item 3: a failed social sign-in comes back with the platform's
// error parameters; the app shows the auth toast once and tidies the URL.
import { describe, expect, it } from 'vitest'
import { act, screen, waitFor } from '@testing-library/react'
import { renderApp } from '@/testing/render'
import { marketplace } from '@/testing/fixtures'
import { readRedirectError } from './auth-redirect-error'

const DENIED = 'The user has denied your application access.'

describe('auth errors sent back by the auth server', () => {
  it('shows the server message from the fragment once and removes the parameters', async () => {
    const hash = `#error=access_denied&error_code=provider_error&error_description=${encodeURIComponent(DENIED)}&sb=`
    const { router } = renderApp(`/auth?mode=sign-in${hash}`, { tables: marketplace() })
    expect(await screen.findByText(DENIED)).toBeInTheDocument()
    expect(screen.getByText('Error')).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.hash).toBe(''))
    expect(router.state.location.pathname + router.state.location.search).toBe('/auth?mode=sign-in')
    // Moving on within the app does not bring it back.
    await act(() => router.navigate('/creators'))
    await act(() => router.navigate(-1))
    await new Promise((ok) => setTimeout(ok, 100))
    expect(screen.getAllByText(DENIED)).toHaveLength(1)
  })

  it('reads the query (PKCE) too, keeps other parameters, and shows markup as text', async () => {
    const { router } = renderApp(
      `/?tab=x&error=invalid_request&error_code=provider_disabled&error_description=${encodeURIComponent('<b>Unsupported</b> provider')}`,
      { tables: marketplace() },
    )
    expect(await screen.findByText('<b>Unsupported</b> provider')).toBeInTheDocument()
    expect(document.querySelector('b')).toBeNull()
    await waitFor(() => expect(router.state.location.search).toBe('?tab=x'))
  })

  it("falls back to 'An unexpected error occurred' without a description", async () => {
    renderApp('/#error=server_error&sb=', { tables: marketplace() })
    expect(await screen.findByText('An unexpected error occurred')).toBeInTheDocument()
  })

  it('leaves URLs without an error alone', () => {
    expect(readRedirectError('?mode=sign-in', '#main')).toBeNull()
    expect(readRedirectError('', '')).toBeNull()
    const long = readRedirectError('', `#error_description=${'x'.repeat(5000)}`)
    expect(long?.message.length).toBeLessThanOrEqual(301)
    expect(readRedirectError('?a=1&error=e', '#keep')).toEqual({
      message: 'An unexpected error occurred',
      search: '?a=1',
      hash: '#keep',
    })
  })
})
