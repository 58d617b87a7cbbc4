// Admin pages: anyone else sees Access Denied (the route itself already
// requires sign-in).
import type { ReactNode } from 'react'
import { ShieldAlert } from 'lucide-react'
import { EmptyState, Spinner } from '@/components/ui/feedback'
import { useIsAdmin } from '../api/is-admin'

export function RequireAdmin({ children }: { children: ReactNode }) {
  const { isAdmin, loading } = useIsAdmin()
  if (loading) return <Spinner label="Loading..." />
  if (!isAdmin)
    return (
      <EmptyState
        icon={<ShieldAlert className="h-10 w-10" aria-hidden />}
        title="Access Denied"
        description="You don't have permission to access this page."
      />
    )
  return <>{children}</>
}
