// Routes that need a signed-in user: visitors go to /auth with the attempted
// path as redirect, and the path is remembered for the return.
import type { ReactNode } from 'react'
import { Navigate, useLocation } from 'react-router'
import { useSession } from '@/lib/session'
import { useNavMemory } from '@/lib/nav-memory'
import { Spinner } from '@/components/ui/feedback'

export function authPathFor(path: string): string {
  return `/auth?mode=sign-in&redirect=${encodeURIComponent(path)}`
}

export function RequireAuth({ children }: { children: ReactNode }) {
  const { user, loading } = useSession()
  const location = useLocation()
  if (loading) return <Spinner label="Loading..." />
  if (!user) {
    const attempted = location.pathname + location.search
    useNavMemory.getState().remember(attempted)
    return <Navigate to={authPathFor(attempted)} replace />
  }
  return <>{children}</>
}
