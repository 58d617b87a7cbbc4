// The route table (spec section 2). Every screen is its own chunk.
import { lazy } from 'react'
import type { RouteObject } from 'react-router'
import { RootLayout } from './layout/root-layout'
import { RequireAuth } from './require-auth'

const Home = lazy(() => import('./routes/home'))
const Auth = lazy(() => import('./routes/auth'))
const Discover = lazy(() => import('./routes/discover'))
const Categories = lazy(() => import('./routes/categories'))
const Category = lazy(() => import('./routes/category'))
const Creators = lazy(() => import('./routes/creators'))
const Profile = lazy(() => import('./routes/profile'))
const TemplateDetail = lazy(() => import('./routes/template'))
const Checkout = lazy(() => import('./routes/checkout'))
const Placeholder = lazy(() => import('./routes/placeholder'))
const NotFound = lazy(() => import('./routes/not-found'))

export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <Home /> },
      { path: '/auth', element: <Auth /> },
      { path: '/discover', element: <Discover /> },
      { path: '/categories', element: <Categories /> },
      { path: '/category/:slug', element: <Category /> },
      { path: '/creators', element: <Creators /> },
      { path: '/profile/:usernameOrId', element: <Profile /> },
      { path: '/template/:id', element: <TemplateDetail /> },
      { path: '/checkout', element: <Checkout /> },
      { path: '/download-secure/:orderId', element: <Placeholder title="Secure download" /> },
      {
        path: '/upload',
        element: (
          <RequireAuth>
            <Placeholder title="Upload a template" />
          </RequireAuth>
        ),
      },
      {
        path: '/download/:orderId',
        element: (
          <RequireAuth>
            <Placeholder title="Your download" />
          </RequireAuth>
        ),
      },
      {
        path: '/dashboard/*',
        element: (
          <RequireAuth>
            <Placeholder title="Dashboard" />
          </RequireAuth>
        ),
      },
      { path: '*', element: <NotFound /> },
    ],
  },
]
