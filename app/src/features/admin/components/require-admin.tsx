// Admin pages: anyone else sees Access Denied (the route itself already
// requires sign-in).
import type { ReactNode } from 'react'
import { ShieldAlert } from 'lucide-react'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { useIsAdmin } from '../api/is-admin'

export function RequireAdmin({ children }: { children: ReactNode }) {
  const { isAdmin, loading, failed } = useIsAdmin()
  if (loading) return <Spinner label="Loading..." />
  // Not knowing is not "Access Denied" (issue 24).
  if (failed) return <LoadError />
  if (!isAdmin)
    return (
      <EmptyState
        icon={<ShieldAlert className="h-10 w-10" aria-hidden />}
        title="Access Denied"
        titleAs="h1"
        description="You don't have permission to access this page."
      />
    )
  return <>{children}</>
}
