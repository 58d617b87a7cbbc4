import { Suspense } from 'react'
import { Outlet } from 'react-router'
import { PageSpinner } from '@/components/ui/page-spinner'
import { Header } from './header'
import { Footer } from './footer'
import { useFocusAfterNavigation, useNavigationMemory, useScrollToTop } from './navigation-effects'
import { useAuthRedirectError } from './auth-redirect-error'
import { useSecondFactorGate } from './second-factor-gate'
import { useReviewNotifications } from './review-notifications'

export function RootLayout() {
  useScrollToTop()
  useFocusAfterNavigation()
  useNavigationMemory()
  useAuthRedirectError()
  useSecondFactorGate()
  useReviewNotifications()
  return (
    <div className="flex min-h-screen flex-col">
      <a
        href="#main"
        className="sr-only z-50 rounded bg-white px-3 py-2 text-sm focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:ring-2 focus:ring-brand-500"
      >
        Skip to content
      </a>
      <Header />
      {/* Focusable by script only (the skip link, useFocusAfterNavigation); not a Tab stop, and no ring. */}
      <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
        <Suspense fallback={<PageSpinner label="Loading..." />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
    </div>
  )
}
