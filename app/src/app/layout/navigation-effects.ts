// Global navigation behaviour (spec section 2): scroll to top on each route
// change; for signed-in users remember the last path + query. Departing from
// the spec's "restored 100 ms after login or load" (issue 15, item 1): a load
// never moves away from the URL the person opened; the remembered path is
// restored NAV_RESTORE_DELAY_MS after a sign-in only when it lands on the site
// root without a target of its own (see restoreTarget).
import { useEffect, useRef } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { useSession } from '@/lib/session'
import { isRememberable, isSignInReturn, restoreTarget, useNavMemory } from '@/lib/nav-memory'
import { NAV_RESTORE_DELAY_MS } from '@/config/constants'

// Read once, as the document starts, before the auth client tidies the URL.
const OPENED_AS_SIGN_IN_RETURN = typeof window !== 'undefined' && isSignInReturn(window.location)

export function useScrollToTop() {
  const { pathname } = useLocation()
  useEffect(() => {
    window.scrollTo(0, 0)
  }, [pathname])
}

export function useNavigationMemory() {
  const location = useLocation()
  const navigate = useNavigate()
  const { user, loading } = useSession()
  const here = location.pathname + location.search
  const pathRef = useRef(location.pathname)
  pathRef.current = location.pathname
  const seenUser = useRef<string | null | undefined>(undefined)

  // Restore: only in a document opened as the return from a sign-in, never
  // on a plain load (sign-ins through /auth go where takeReturnPath says).
  useEffect(() => {
    if (loading) return
    const id = user?.id ?? null
    const before = seenUser.current
    seenUser.current = id
    if (!id || before !== undefined) return
    const target = restoreTarget(pathRef.current, useNavMemory.getState().lastPath, OPENED_AS_SIGN_IN_RETURN)
    if (!target) return
    const timer = setTimeout(() => {
      if (pathRef.current === '/') navigate(target, { replace: true })
    }, NAV_RESTORE_DELAY_MS)
    return () => clearTimeout(timer)
  }, [user?.id, loading, navigate])

  // Remember: every location a signed-in user visits (never /auth).
  useEffect(() => {
    if (user && isRememberable(here)) useNavMemory.getState().remember(here)
  }, [user, here])
}
