// A failed social sign-in comes back from the auth server with the platform's
// `error`, `error_code` and `error_description` in the fragment (implicit
// flow) or the query (PKCE), on whatever page it was sent back to. Show the
// server's message once as the spec's auth toast ('Error' / the message, or
// 'An unexpected error occurred') and take the parameters out of the URL
// (replacing the history entry), so a reload or Back does not repeat it
// (issue 15, item 3). The text is shown as plain text, never as markup.
import { useEffect, useRef } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { toastError } from '@/lib/toast'

const ERROR_PARAMS = ['error', 'error_code', 'error_description']
/** Long enough for any message of the auth server; a crafted link gets no essay. */
const MAX_MESSAGE = 300

export interface RedirectError {
  message: string
  /** The query and fragment without the error parameters ('' or '?...', '' or '#...'). */
  search: string
  hash: string
}

function strip(params: URLSearchParams, extra: string[] = []): string {
  for (const name of [...ERROR_PARAMS, ...extra]) params.delete(name)
  return params.toString()
}

/** The auth error a URL carries, and the URL's parts without it; null when none. */
export function readRedirectError(search: string, hash: string): RedirectError | null {
  const query = new URLSearchParams(search)
  const fragment = new URLSearchParams(hash.replace(/^#/, ''))
  const carrier = [fragment, query].find((p) => p.has('error_description') || p.has('error'))
  if (!carrier) return null
  const description = (carrier.get('error_description') ?? '').trim()
  const message = description
    ? description.length > MAX_MESSAGE
      ? `${description.slice(0, MAX_MESSAGE)}…`
      : description
    : 'An unexpected error occurred'
  const fragmentHasError = fragment.has('error_description') || fragment.has('error')
  const queryHasError = query.has('error_description') || query.has('error')
  const nextSearch = queryHasError ? strip(query) : query.toString()
  // `sb` is the auth client's marker on the fragments the auth server sends.
  const nextHash = fragmentHasError ? strip(fragment, ['sb']) : hash.replace(/^#/, '')
  return {
    message,
    search: nextSearch ? `?${nextSearch}` : '',
    hash: nextHash ? `#${nextHash}` : '',
  }
}

export function useAuthRedirectError() {
  const location = useLocation()
  const navigate = useNavigate()
  const handled = useRef<string | null>(null)
  useEffect(() => {
    if (handled.current === location.key) return
    const found = readRedirectError(location.search, location.hash)
    if (!found) return
    handled.current = location.key
    toastError(found.message)
    navigate(
      { pathname: location.pathname, search: found.search, hash: found.hash },
      { replace: true, state: location.state, preventScrollReset: true },
    )
  }, [location, navigate])
}
