// The route table (spec section 2). Every screen is its own chunk.
import { lazy } from 'react'
import { Outlet, type RouteObject } from 'react-router'
import { RootLayout } from './layout/root-layout'
import { RequireAuth } from './require-auth'
import { RequireAdmin } from '@/features/admin/components/require-admin'

const Home = lazy(() => import('./routes/home'))
const Auth = lazy(() => import('./routes/auth'))
const AuthResetPassword = lazy(() => import('./routes/auth-reset-password'))
const AuthConfirmed = lazy(() => import('./routes/auth-confirmed'))
const Discover = lazy(() => import('./routes/discover'))
const Categories = lazy(() => import('./routes/categories'))
const Category = lazy(() => import('./routes/category'))
const Creators = lazy(() => import('./routes/creators'))
const Profile = lazy(() => import('./routes/profile'))
const TemplateDetail = lazy(() => import('./routes/template'))
const Checkout = lazy(() => import('./routes/checkout'))
const Download = lazy(() => import('./routes/download'))
const DownloadSecure = lazy(() => import('./routes/download-secure'))
const Upload = lazy(() => import('./routes/upload'))
const DashboardLayout = lazy(() => import('./routes/dashboard/layout'))
const DashboardHome = lazy(() => import('./routes/dashboard/home'))
const DashboardProfile = lazy(() => import('./routes/dashboard/profile'))
const DashboardTemplates = lazy(() => import('./routes/dashboard/templates'))
const DashboardEditTemplate = lazy(() => import('./routes/dashboard/edit-template'))
const DashboardSettings = lazy(() => import('./routes/dashboard/settings'))
const DashboardAudience = lazy(() => import('./routes/dashboard/audience'))
const DashboardSales = lazy(() => import('./routes/dashboard/sales'))
const DashboardWishlist = lazy(() => import('./routes/dashboard/wishlist'))
const DashboardLibrary = lazy(() => import('./routes/dashboard/library'))
const DashboardAdmin = lazy(() => import('./routes/dashboard/admin'))
const DashboardAdminTemplate = lazy(() => import('./routes/dashboard/admin-template'))
const NotFound = lazy(() => import('./routes/not-found'))

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <Home /> },
      { path: '/auth', element: <Auth /> },
      { path: '/auth/reset-password', element: <AuthResetPassword /> },
      { path: '/auth/confirmed', element: <AuthConfirmed /> },
      { path: '/discover', element: <Discover /> },
      { path: '/categories', element: <Categories /> },
      { path: '/category/:slug', element: <Category /> },
      { path: '/creators', element: <Creators /> },
      { path: '/profile/:usernameOrId', element: <Profile /> },
      { path: '/template/:id', element: <TemplateDetail /> },
      { path: '/checkout', element: <Checkout /> },
      { path: '/download-secure/:orderId', element: <DownloadSecure /> },
      {
        path: '/download/:orderId',
        element: (
          <RequireAuth>
            <Download />
          </RequireAuth>
        ),
      },
      {
        path: '/upload',
        element: (
          <RequireAuth>
            <Upload />
          </RequireAuth>
        ),
      },
      {
        path: '/dashboard',
        element: (
          <RequireAuth>
            <DashboardLayout />
          </RequireAuth>
        ),
        children: [
          { index: true, element: <DashboardHome /> },
          { path: 'profile', element: <DashboardProfile /> },
          { path: 'templates', element: <DashboardTemplates /> },
          { path: 'templates/edit/:templateId', element: <DashboardEditTemplate /> },
          { path: 'settings', element: <DashboardSettings /> },
          { path: 'audience', element: <DashboardAudience /> },
          { path: 'sales', element: <DashboardSales /> },
          { path: 'wishlist', element: <DashboardWishlist /> },
          { path: 'library', element: <DashboardLibrary /> },
          {
            path: 'admin',
            element: (
              <RequireAdmin>
                <Outlet />
              </RequireAdmin>
            ),
            children: [
              { index: true, element: <DashboardAdmin /> },
              { path: 'template/:templateId', element: <DashboardAdminTemplate /> },
              { path: 'upload', element: <Upload /> },
            ],
          },
          { path: '*', element: <NotFound /> },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]
