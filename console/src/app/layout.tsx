import { Suspense, useState } from 'react'
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router'
import * as Sheet from '@radix-ui/react-dialog'
import { Activity, Database, FileCode2, FolderOpen, LogOut, Menu, Radio, Settings, Shield, Table2, Users, X } from 'lucide-react'
import { Button, buttonClass } from '@/components/ui/button'
import { ErrorAlert, Spinner } from '@/components/ui/feedback'
import { cn } from '@/lib/format'
import { isNotSignedIn } from '@/lib/api'
import { toastError } from '@/lib/toast'
import { useSession, useSignOut } from '@/features/auth/api/session'
import { NAV } from './routes'

const ICONS = {
  '/users': Users,
  '/tables': Table2,
  '/sql': FileCode2,
  '/policies': Shield,
  '/storage': FolderOpen,
  '/realtime': Radio,
  '/logs': Activity,
  '/settings': Settings,
} as const

function Brand() {
  return (
    <div className="flex items-center gap-2">
      <span className="flex h-8 w-8 items-center justify-center rounded-lg bg-brand-600 text-white">
        <Database className="h-4 w-4" aria-hidden />
      </span>
      <span className="text-base font-bold tracking-tight text-slate-900">Plinth console</span>
    </div>
  )
}

function NavLinks({ onNavigate }: { onNavigate?: () => void }) {
  return (
    <nav aria-label="Console" className="space-y-0.5">
      {NAV.map(({ to, label }) => {
        const Icon = ICONS[to]
        return (
          <NavLink
            key={to}
            to={to}
            onClick={onNavigate}
            className={({ isActive }) =>
              cn(
                'flex items-center gap-2.5 rounded-lg px-3 py-2 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                isActive ? 'bg-brand-50 text-brand-800' : 'text-slate-700 hover:bg-slate-100',
              )
            }
          >
            <Icon className="h-4 w-4" aria-hidden />
            {label}
          </NavLink>
        )
      })}
    </nav>
  )
}

function useSignOutAndLeave() {
  const signOut = useSignOut()
  const navigate = useNavigate()
  return {
    pending: signOut.isPending,
    run: () =>
      signOut.mutate(undefined, {
        onSuccess: () => navigate('/sign-in', { replace: true }),
        onError: (error) => toastError(error, 'Sign-out failed'),
      }),
  }
}

function Drawer() {
  const [open, setOpen] = useState(false)
  return (
    <Sheet.Root open={open} onOpenChange={setOpen}>
      <Sheet.Trigger className={buttonClass('ghost', 'icon')} aria-label="Open menu">
        <Menu className="h-5 w-5" aria-hidden />
      </Sheet.Trigger>
      <Sheet.Portal>
        <Sheet.Overlay className="fixed inset-0 z-50 bg-slate-900/40" />
        <Sheet.Content className="fixed inset-y-0 left-0 z-50 flex w-[17rem] max-w-[85vw] flex-col overflow-y-auto bg-white p-4 shadow-xl focus:outline-none">
          <div className="mb-4 flex items-center justify-between">
            <Sheet.Title className="text-base font-semibold text-slate-900">Menu</Sheet.Title>
            <Sheet.Description className="sr-only">The console's sections</Sheet.Description>
            <Sheet.Close className={buttonClass('ghost', 'iconSm')} aria-label="Close menu">
              <X className="h-4 w-4" aria-hidden />
            </Sheet.Close>
          </div>
          <NavLinks onNavigate={() => setOpen(false)} />
        </Sheet.Content>
      </Sheet.Portal>
    </Sheet.Root>
  )
}

export function ConsoleLayout() {
  const session = useSession()
  const location = useLocation()
  const signOut = useSignOutAndLeave()
  if (session.isPending) return <Spinner label="Checking your session…" className="min-h-screen" />
  if (session.isError) {
    if (isNotSignedIn(session.error))
      return <Navigate to={`/sign-in?redirect=${encodeURIComponent(location.pathname + location.search)}`} replace />
    return (
      <main id="main" className="mx-auto max-w-md p-6">
        <h1 className="mb-3 text-xl font-bold">Plinth console</h1>
        <ErrorAlert error={session.error} title="The console's server does not answer" />
        <Button className="mt-4" onClick={() => void session.refetch()}>
          Try again
        </Button>
      </main>
    )
  }
  const email = session.data.operator.email
  return (
    <div className="min-h-screen md:flex">
      <a
        href="#main"
        className="sr-only z-50 rounded bg-white px-3 py-2 text-sm focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:ring-2 focus:ring-brand-500"
      >
        Skip to content
      </a>
      <aside className="sticky top-0 hidden h-screen w-60 shrink-0 flex-col border-r border-slate-200 bg-white p-4 md:flex">
        <div className="mb-6 px-1">
          <Brand />
        </div>
        <NavLinks />
        <div className="mt-auto border-t border-slate-100 pt-3">
          <p className="truncate px-1 text-xs text-slate-600" title={email}>
            Signed in as <span className="font-medium text-slate-800">{email}</span>
          </p>
          <Button variant="ghost" size="sm" className="mt-2 w-full justify-start" onClick={signOut.run} disabled={signOut.pending}>
            <LogOut className="h-4 w-4" aria-hidden /> Sign out
          </Button>
        </div>
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        <header className="sticky top-0 z-40 flex h-14 items-center justify-between gap-2 border-b border-slate-200 bg-white/95 px-2 md:hidden">
          <div className="flex min-w-0 items-center gap-1">
            <Drawer />
            <Brand />
          </div>
          <Button variant="ghost" size="sm" onClick={signOut.run} disabled={signOut.pending}>
            <LogOut className="h-4 w-4" aria-hidden /> Sign out
          </Button>
        </header>
        <main id="main" className="min-w-0 flex-1 px-3 py-5 sm:px-6">
          <Suspense fallback={<Spinner />}>
            <Outlet />
          </Suspense>
        </main>
      </div>
    </div>
  )
}
