// A session that owes its second factor (signed in by password, magic link
// or a provider, with a verified MFA factor, at aal1) is not signed in yet:
// wherever it is, it goes to /auth, where the code screen asks for the code
// and then returns here.
import { useEffect } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { useSession } from '@/lib/session'
import { authPathFor } from '../require-auth'

export function useSecondFactorGate() {
  const { mfaPending, loading } = useSession()
  const location = useLocation()
  const navigate = useNavigate()
  const here = location.pathname + location.search
  const onAuth = location.pathname === '/auth'
  useEffect(() => {
    if (!loading && mfaPending && !onAuth) navigate(authPathFor(here), { replace: true })
  }, [loading, mfaPending, onAuth, here, navigate])
}
