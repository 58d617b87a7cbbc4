import { useState } from 'react'
import { Link, NavLink, useNavigate } from 'react-router'
import * as Menu from '@radix-ui/react-dropdown-menu'
import * as Sheet from '@radix-ui/react-dialog'
import { ChevronDown, LayoutDashboard, LayoutTemplate, LogOut, Menu as MenuIcon, Settings, Upload, User, X } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Button, ButtonLink, buttonClass } from '@/components/ui/button'
import { Container } from '@/components/ui/layout'
import { cn } from '@/lib/format'
import { signOut, useSession } from '@/lib/session'
import { errorText, toastError } from '@/lib/toast'
import { profilePath } from '@/lib/types'
import { BRAND, HEADER_CATEGORIES } from '@/config/constants'
import { useOwnProfile } from '@/features/profiles/api/get-own-profile'

export const DISCOVER_LINKS = [
  { label: 'Most Popular', to: '/discover?sort=most-popular' },
  { label: 'Free Templates', to: '/discover?price=free' },
  { label: 'Premium Templates', to: '/discover?price=paid' },
  { label: 'Browse All', to: '/discover' },
]

const UPLOAD_FOR_VISITORS = '/auth?mode=sign-in&redirect=%2Fupload'

const navLink = ({ isActive }: { isActive: boolean }) =>
  cn(
    'rounded-md px-3 py-2 text-sm font-medium transition-colors focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
    isActive ? 'text-brand-700' : 'text-slate-700 hover:text-slate-900',
  )

const menuContent =
  'z-50 min-w-[12rem] rounded-xl border border-slate-200 bg-white p-1.5 shadow-lg data-[state=open]:animate-in'
const menuItem =
  'flex cursor-pointer select-none items-center gap-2 rounded-lg px-3 py-2 text-sm text-slate-700 outline-none data-[highlighted]:bg-brand-50 data-[highlighted]:text-brand-800'

function Logo() {
  return (
    <Link to="/" className="flex items-center gap-2 rounded-lg focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500">
      <span className="flex h-9 w-9 items-center justify-center rounded-lg bg-brand-600 text-white">
        <LayoutTemplate className="h-5 w-5" aria-hidden />
      </span>
      <span className="whitespace-nowrap text-base font-bold tracking-tight text-slate-900 sm:text-lg">{BRAND}</span>
    </Link>
  )
}

/**
 * A header entry that is a real link (so it opens in a new tab, issue 15 item
 * 12) with its dropdown on a separate toggle button beside it; the menu's
 * entries are links too.
 */
function NavDropdown({
  label,
  to,
  items,
  footer,
}: {
  label: string
  to: string
  items: Array<{ label: string; to: string }>
  footer?: { label: string; to: string }
}) {
  return (
    <div className="inline-flex items-center">
      <NavLink to={to} end className={(state) => cn(navLink(state), 'pr-1')}>
        {label}
      </NavLink>
      <Menu.Root modal={false}>
        <Menu.Trigger
          aria-label={`${label} menu`}
          className="rounded-md p-1 text-slate-600 transition-colors hover:text-slate-900 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
        >
          <ChevronDown className="h-4 w-4" aria-hidden />
        </Menu.Trigger>
        {/* Not portalled to <body>: the menu stays inside the header's nav landmark (axe region). */}
        <Menu.Content align="start" sideOffset={6} className={menuContent}>
          {items.map((item) => (
            <Menu.Item key={item.to} className={menuItem} asChild>
              <Link to={item.to}>{item.label}</Link>
            </Menu.Item>
          ))}
          {footer && (
            <>
              <Menu.Separator className="my-1 h-px bg-slate-100" />
              <Menu.Item className={cn(menuItem, 'justify-center font-medium text-brand-700')} asChild>
                <Link to={footer.to}>{footer.label}</Link>
              </Menu.Item>
            </>
          )}
        </Menu.Content>
      </Menu.Root>
    </div>
  )
}

function useLogout() {
  const navigate = useNavigate()
  return async () => {
    try {
      await signOut()
      navigate('/')
    } catch (error) {
      toastError(errorText(error, 'An unexpected error occurred'))
    }
  }
}

function AccountMenu() {
  const { user } = useSession()
  const { data: profile } = useOwnProfile(user?.id)
  const navigate = useNavigate()
  const logout = useLogout()
  if (!user) return null
  const name = profile?.display_name || (user.user_metadata?.display_name as string | undefined) || user.email || 'Account'
  const handle = profile?.username ? `@${profile.username}` : (user.email ?? '')
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger
        aria-label="Account menu"
        className="rounded-full focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500 focus-visible:ring-offset-2"
      >
        <Avatar url={profile?.avatar_url} name={name} size="sm" />
      </Menu.Trigger>
      {/* Not portalled to <body>: the menu stays inside the header's banner landmark (axe region). */}
      <Menu.Content align="end" sideOffset={8} className={cn(menuContent, 'w-60')}>
        {/* Shown whole: a long name or e-mail wraps rather than being cut (issue 15, item 18). */}
        <div className="px-3 py-2" data-testid="account-identity">
          <p className="text-sm font-semibold text-slate-900 [overflow-wrap:anywhere]">{name}</p>
          <p className="text-xs text-slate-600 [overflow-wrap:anywhere]">{handle}</p>
        </div>
        <Menu.Separator className="my-1 h-px bg-slate-100" />
        <Menu.Item className={menuItem} onSelect={() => navigate(profilePath({ id: user.id, username: profile?.username ?? null }))}>
          <User className="h-4 w-4" aria-hidden /> Profile
        </Menu.Item>
        <Menu.Item className={menuItem} onSelect={() => navigate('/dashboard')}>
          <LayoutDashboard className="h-4 w-4" aria-hidden /> Dashboard
        </Menu.Item>
        <Menu.Item className={menuItem} onSelect={() => navigate('/dashboard/settings')}>
          <Settings className="h-4 w-4" aria-hidden /> Settings
        </Menu.Item>
        <Menu.Separator className="my-1 h-px bg-slate-100" />
        <Menu.Item className={menuItem} onSelect={() => void logout()}>
          <LogOut className="h-4 w-4" aria-hidden /> Logout
        </Menu.Item>
      </Menu.Content>
    </Menu.Root>
  )
}

function MobileDrawer() {
  const [open, setOpen] = useState(false)
  const { user } = useSession()
  const { data: profile } = useOwnProfile(user?.id)
  const logout = useLogout()
  const close = () => setOpen(false)
  const name = profile?.display_name || (user?.user_metadata?.display_name as string | undefined) || user?.email || ''
  const link = 'block rounded-lg px-3 py-2 text-sm font-medium text-slate-800 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'
  const sub = 'block rounded-lg px-3 py-1.5 pl-6 text-sm text-slate-700 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'
  return (
    <Sheet.Root open={open} onOpenChange={setOpen}>
      <Sheet.Trigger className={buttonClass('ghost', 'icon', 'md:hidden')} aria-label="Open menu">
        <MenuIcon className="h-5 w-5" aria-hidden />
      </Sheet.Trigger>
      <Sheet.Portal>
        <Sheet.Overlay className="fixed inset-0 z-50 bg-slate-900/40" />
        {/* The links scroll; the account's actions (Logout) stay at the foot of the drawer, in view on any phone (issue 44, low). */}
        <Sheet.Content className="fixed inset-y-0 left-0 z-50 flex w-[18rem] max-w-[85vw] flex-col bg-white shadow-xl focus:outline-none">
          <div className="flex items-center justify-between px-4 pt-4 pb-2">
            <Sheet.Title className="text-base font-semibold text-slate-900">Menu</Sheet.Title>
            <Sheet.Description className="sr-only">Site navigation</Sheet.Description>
            <Sheet.Close className={buttonClass('ghost', 'icon', 'h-8 w-8')} aria-label="Close menu">
              <X className="h-4 w-4" aria-hidden />
            </Sheet.Close>
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto px-4 pb-4" data-testid="drawer-scroll">
            {user && (
              <div className="mb-4 flex items-center gap-3 rounded-xl bg-slate-50 p-3">
                <Avatar url={profile?.avatar_url} name={name || 'Account'} size="md" />
                <div className="min-w-0">
                  <p className="text-sm font-semibold text-slate-900 [overflow-wrap:anywhere]">{name}</p>
                  <p className="text-xs text-slate-600 [overflow-wrap:anywhere]">{profile?.username ? `@${profile.username}` : user.email}</p>
                </div>
              </div>
            )}
            <nav aria-label="Mobile" className="space-y-1" onClick={(e) => (e.target as HTMLElement).closest('a') && close()}>
              <Link to="/" className={link}>Home</Link>
              <p className="px-3 pt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Discover</p>
              {DISCOVER_LINKS.map((l) => (
                <Link key={l.to} to={l.to} className={sub}>{l.label}</Link>
              ))}
              <p className="px-3 pt-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Categories</p>
              {HEADER_CATEGORIES.map((c) => (
                <Link key={c.slug} to={`/category/${c.slug}`} className={sub}>{c.name}</Link>
              ))}
              <Link to="/categories" className={sub}>View All</Link>
              <Link to="/creators" className={link}>Creators</Link>
              <Link to={user ? '/upload' : UPLOAD_FOR_VISITORS} className={link}>Upload</Link>
              {user && (
                <>
                  <div className="my-3 h-px bg-slate-100" />
                  <Link to={profilePath({ id: user.id, username: profile?.username ?? null })} className={link}>Profile</Link>
                  <Link to="/dashboard" className={link}>Dashboard</Link>
                  <Link to="/dashboard/settings" className={link}>Settings</Link>
                </>
              )}
            </nav>
          </div>
          <div className="border-t border-slate-200 px-4 py-3" data-testid="drawer-foot">
            {user ? (
              <button type="button" className={cn(link, 'flex w-full items-center gap-2 text-left')} onClick={() => { close(); void logout() }}>
                <LogOut className="h-4 w-4" aria-hidden /> Logout
              </button>
            ) : (
              <div className="grid grid-cols-2 gap-2" onClick={(e) => (e.target as HTMLElement).closest('a') && close()}>
                <ButtonLink to="/auth?mode=sign-in" variant="outline">Sign In</ButtonLink>
                <ButtonLink to="/auth?mode=sign-up">Sign Up</ButtonLink>
              </div>
            )}
          </div>
        </Sheet.Content>
      </Sheet.Portal>
    </Sheet.Root>
  )
}

export function Header() {
  const { user, loading } = useSession()
  const navigate = useNavigate()
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200 bg-white/90 backdrop-blur">
      <Container className="flex h-16 items-center justify-between gap-4">
        <div className="flex items-center gap-2">
          <MobileDrawer />
          <Logo />
        </div>
        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          <NavLink to="/" end className={navLink}>Home</NavLink>
          <NavDropdown label="Discover" to="/discover" items={DISCOVER_LINKS} />
          <NavDropdown
            label="Categories"
            to="/categories"
            items={HEADER_CATEGORIES.map((c) => ({ label: c.name, to: `/category/${c.slug}` }))}
            footer={{ label: 'View All', to: '/categories' }}
          />
          <NavLink to="/creators" className={navLink}>Creators</NavLink>
        </nav>
        <div className="flex items-center gap-2">
          <div className="hidden sm:block">
            <Button variant="secondary" onClick={() => navigate(user ? '/upload' : UPLOAD_FOR_VISITORS)}>
              <Upload className="h-4 w-4" aria-hidden /> Upload
            </Button>
          </div>
          {loading ? (
            <span className="h-8 w-8 animate-pulse rounded-full bg-slate-200" aria-hidden />
          ) : user ? (
            <AccountMenu />
          ) : (
            <div className="hidden items-center gap-2 md:flex">
              <ButtonLink to="/auth?mode=sign-in" variant="ghost">Sign In</ButtonLink>
              <ButtonLink to="/auth?mode=sign-up">Sign Up</ButtonLink>
            </div>
          )}
        </div>
      </Container>
    </header>
  )
}
