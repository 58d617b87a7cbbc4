// The dashboard frame: a sidebar beside the dashboard screens (spec section 2,
// Dashboard → Sidebar). On a wide screen the sidebar collapses to icons with
// Ctrl/Cmd+B or its toggle, and the choice is kept in a cookie for 7 days;
// below the mobile breakpoint it is a drawer.
import { Suspense, useCallback, useEffect, useState, type ComponentType } from 'react'
import { NavLink, Outlet } from 'react-router'
import * as Sheet from '@radix-ui/react-dialog'
import {
  BarChart3,
  Compass,
  Heart,
  LayoutDashboard,
  Library,
  PanelLeft,
  Settings,
  ShieldCheck,
  Upload,
  User,
  Users,
  UsersRound,
  LayoutGrid,
  X,
} from 'lucide-react'
import { buttonClass } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { cn } from '@/lib/format'
import { SIDEBAR_COOKIE, SIDEBAR_COOKIE_MAX_AGE_S, SIDEBAR_SHORTCUT_KEY } from '@/config/constants'
import { useIsAdmin } from '@/features/admin/api/is-admin'

interface Entry {
  label: string
  to: string
  icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean }>
  end?: boolean
}

const MAIN: Entry[] = [
  { label: 'Dashboard', to: '/dashboard', icon: LayoutDashboard, end: true },
  { label: 'Profile', to: '/dashboard/profile', icon: User },
  { label: 'Templates', to: '/dashboard/templates', icon: LayoutGrid },
  { label: 'Audience', to: '/dashboard/audience', icon: Users },
  { label: 'Sales', to: '/dashboard/sales', icon: BarChart3 },
]
const LISTS: Entry[] = [
  { label: 'Wishlist', to: '/dashboard/wishlist', icon: Heart },
  { label: 'Library', to: '/dashboard/library', icon: Library },
]
const PUBLIC: Entry[] = [
  { label: 'Discover', to: '/discover', icon: Compass },
  { label: 'Creators', to: '/creators', icon: UsersRound },
]
const ADMIN: Entry[] = [
  { label: 'Admin Panel', to: '/dashboard/admin', icon: ShieldCheck, end: true },
  { label: 'Upload Template', to: '/dashboard/admin/upload', icon: Upload },
]
const SETTINGS: Entry = { label: 'Settings', to: '/dashboard/settings', icon: Settings }

/** The sidebar's expanded state from its cookie; expanded when there is none. */
export function readSidebarCookie(cookie: string): boolean {
  const value = cookie
    .split(';')
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${SIDEBAR_COOKIE}=`))
    ?.slice(SIDEBAR_COOKIE.length + 1)
  return value !== 'false'
}

function writeSidebarCookie(open: boolean) {
  document.cookie = `${SIDEBAR_COOKIE}=${open}; path=/; max-age=${SIDEBAR_COOKIE_MAX_AGE_S}; samesite=lax`
}

function Group({ title, entries, collapsed, onNavigate }: { title?: string; entries: Entry[]; collapsed: boolean; onNavigate?: () => void }) {
  return (
    <div className="space-y-1">
      {title && !collapsed && <p className="px-3 pb-1 pt-3 text-xs font-semibold uppercase tracking-wide text-slate-500">{title}</p>}
      {title && collapsed && <hr className="mx-2 my-2 border-slate-200" />}
      <ul className="space-y-0.5">
        {entries.map(({ label, to, icon: Icon, end }) => (
          <li key={to}>
            <NavLink
              to={to}
              end={end}
              onClick={onNavigate}
              title={collapsed ? label : undefined}
              aria-label={collapsed ? label : undefined}
              className={({ isActive }) =>
                cn(
                  'flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
                  collapsed && 'justify-center px-0',
                  isActive ? 'bg-brand-50 text-brand-800' : 'text-slate-700 hover:bg-slate-100',
                )
              }
            >
              <Icon className="h-4 w-4 shrink-0" aria-hidden />
              {!collapsed && <span className="truncate">{label}</span>}
            </NavLink>
          </li>
        ))}
      </ul>
    </div>
  )
}

function SidebarEntries({ collapsed, onNavigate }: { collapsed: boolean; onNavigate?: () => void }) {
  const { isAdmin } = useIsAdmin()
  return (
    <div className="flex h-full flex-col gap-2">
      <div className="flex-1 space-y-2">
        <Group entries={MAIN} collapsed={collapsed} onNavigate={onNavigate} />
        <Group title="Lists" entries={LISTS} collapsed={collapsed} onNavigate={onNavigate} />
        <Group title="Public" entries={PUBLIC} collapsed={collapsed} onNavigate={onNavigate} />
        {isAdmin && <Group title="Admin" entries={ADMIN} collapsed={collapsed} onNavigate={onNavigate} />}
      </div>
      <div className="border-t border-slate-200 pt-2">
        <Group entries={[SETTINGS]} collapsed={collapsed} onNavigate={onNavigate} />
      </div>
    </div>
  )
}

export default function DashboardLayout() {
  const [open, setOpen] = useState(() => (typeof document === 'undefined' ? true : readSidebarCookie(document.cookie)))
  const [drawerOpen, setDrawerOpen] = useState(false)

  const toggle = useCallback(() => {
    setOpen((was) => {
      writeSidebarCookie(!was)
      return !was
    })
  }, [])

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key.toLowerCase() === SIDEBAR_SHORTCUT_KEY && (event.ctrlKey || event.metaKey) && !event.altKey) {
        event.preventDefault()
        toggle()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [toggle])

  return (
    <div className="flex min-h-[calc(100vh-4rem)] bg-slate-50">
      <aside
        aria-label="Dashboard"
        data-state={open ? 'expanded' : 'collapsed'}
        className={cn(
          'sticky top-16 hidden h-[calc(100vh-4rem)] shrink-0 flex-col overflow-y-auto border-r border-slate-200 bg-white p-2 transition-[width] md:flex',
          open ? 'w-[16rem]' : 'w-[3rem]',
        )}
      >
        <button
          type="button"
          onClick={toggle}
          aria-expanded={open}
          aria-label={open ? 'Collapse sidebar' : 'Expand sidebar'}
          className={buttonClass('ghost', 'sm', cn('mb-2', open ? 'self-end' : 'self-center px-0 w-8'))}
        >
          <PanelLeft className="h-4 w-4" aria-hidden />
        </button>
        <SidebarEntries collapsed={!open} />
      </aside>

      <div className="min-w-0 flex-1">
        <div className="border-b border-slate-200 bg-white px-4 py-2 md:hidden">
          <Sheet.Root open={drawerOpen} onOpenChange={setDrawerOpen}>
            <Sheet.Trigger className={buttonClass('ghost', 'sm')} aria-label="Open dashboard menu">
              <PanelLeft className="h-4 w-4" aria-hidden /> Dashboard menu
            </Sheet.Trigger>
            <Sheet.Portal>
              <Sheet.Overlay className="fixed inset-0 z-50 bg-slate-900/40" />
              <Sheet.Content className="fixed inset-y-0 left-0 z-50 flex w-[18rem] max-w-[85vw] flex-col overflow-y-auto bg-white p-4 shadow-xl focus:outline-none">
                <div className="mb-3 flex items-center justify-between">
                  <Sheet.Title className="text-base font-semibold text-slate-900">Dashboard menu</Sheet.Title>
                  <Sheet.Description className="sr-only">Dashboard navigation</Sheet.Description>
                  <Sheet.Close className={buttonClass('ghost', 'icon', 'h-8 w-8')} aria-label="Close dashboard menu">
                    <X className="h-4 w-4" aria-hidden />
                  </Sheet.Close>
                </div>
                <SidebarEntries collapsed={false} onNavigate={() => setDrawerOpen(false)} />
              </Sheet.Content>
            </Sheet.Portal>
          </Sheet.Root>
        </div>
        <div className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6 lg:px-8">
          <Suspense fallback={<Spinner label="Loading..." />}>
            <Outlet />
          </Suspense>
        </div>
      </div>
    </div>
  )
}
