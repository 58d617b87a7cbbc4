// Global navigation behaviour (spec section 2): scroll to top on each route
// change; for signed-in users remember the last path + query and restore it
// NAV_RESTORE_DELAY_MS after login or load when it differs from where we are.
import { useEffect, useRef } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { useSession } from '@/lib/session'
import { isRememberable, useNavMemory } from '@/lib/nav-memory'
import { NAV_RESTORE_DELAY_MS } from '@/config/constants'

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
  const hereRef = useRef(here)
  hereRef.current = here
  const seenUser = useRef<string | null | undefined>(undefined)

  // Restore: when the user becomes signed in (a load with a session, or a login).
  useEffect(() => {
    if (loading) return
    const id = user?.id ?? null
    const before = seenUser.current
    seenUser.current = id
    if (!id || before === id) return
    const saved = useNavMemory.getState().lastPath
    if (!saved || !isRememberable(saved)) return
    const timer = setTimeout(() => {
      if (saved !== hereRef.current) navigate(saved, { replace: true })
    }, NAV_RESTORE_DELAY_MS)
    return () => clearTimeout(timer)
  }, [user?.id, loading, navigate])

  // Remember: every location a signed-in user visits (never /auth).
  useEffect(() => {
    if (user && isRememberable(here)) useNavMemory.getState().remember(here)
  }, [user, here])
}
