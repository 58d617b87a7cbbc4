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

/**
 * After a route change whose old screen took the focused element with it (a
 * form's submit button, a link of the old page), focus moves to the main
 * landmark (`#main`, tabIndex -1): the next Tab goes on from the new screen's
 * start rather than from where the old screen was (issue 24, the keyboard walk
 * 'keyboard.mjs'). Focus that is still somewhere (the header's links, a field
 * the new screen focused) stays where it is. The old screen may stay up while
 * the new one's code loads, so this looks again for a moment.
 */
export function useFocusAfterNavigation() {
  const { pathname } = useLocation()
  const shown = useRef(pathname)
  useEffect(() => {
    if (shown.current === pathname) return
    shown.current = pathname
    let looks = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const look = () => {
      const main = document.getElementById('main')
      const active = document.activeElement
      if (!main) return
      if (!active || active === document.body) main.focus({ preventScroll: true })
      else if (active !== main && main.contains(active) && ++looks < FOCUS_LOOKS) timer = setTimeout(look, FOCUS_LOOK_MS)
    }
    timer = setTimeout(look, 0)
    return () => clearTimeout(timer)
  }, [pathname])
}
const FOCUS_LOOKS = 20
const FOCUS_LOOK_MS = 50

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
