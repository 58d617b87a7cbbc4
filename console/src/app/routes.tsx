import { lazy, Suspense } from 'react'
import { Navigate, Outlet, type RouteObject } from 'react-router'
import { Spinner } from '@/components/ui/feedback'
import { ConsoleLayout } from './layout'

const SignIn = lazy(() => import('./routes/sign-in'))
const Users = lazy(() => import('./routes/users'))
const User = lazy(() => import('./routes/user'))
const Tables = lazy(() => import('./routes/tables'))
const Sql = lazy(() => import('./routes/sql'))
const Policies = lazy(() => import('./routes/policies'))
const Storage = lazy(() => import('./routes/storage'))
const Realtime = lazy(() => import('./routes/realtime'))
const Logs = lazy(() => import('./routes/logs'))
const Settings = lazy(() => import('./routes/settings'))
const NotFound = lazy(() => import('./routes/not-found'))

export const NAV = [
  { to: '/users', label: 'Users' },
  { to: '/tables', label: 'Tables' },
  { to: '/sql', label: 'SQL editor' },
  { to: '/policies', label: 'Policies' },
  { to: '/storage', label: 'Storage' },
  { to: '/realtime', label: 'Realtime & functions' },
  { to: '/logs', label: 'Logs & health' },
  { to: '/settings', label: 'Settings' },
] as const

function Root() {
  return (
    <Suspense fallback={<Spinner />}>
      <Outlet />
    </Suspense>
  )
}

export const routes: RouteObject[] = [
  {
    element: <Root />,
    children: [
  { path: '/sign-in', element: <SignIn /> },
  {
    element: <ConsoleLayout />,
    children: [
      { index: true, element: <Navigate to="/users" replace /> },
      { path: '/users', element: <Users /> },
      { path: '/users/:id', element: <User /> },
      { path: '/tables', element: <Tables /> },
      { path: '/sql', element: <Sql /> },
      { path: '/policies', element: <Policies /> },
      { path: '/storage', element: <Storage /> },
      { path: '/realtime', element: <Realtime /> },
      { path: '/logs', element: <Logs /> },
      { path: '/settings', element: <Settings /> },
      { path: '*', element: <NotFound /> },
    ],
  },
    ],
  },
]
