import { Suspense } from 'react'
import { Outlet } from 'react-router'
import { Spinner } from '@/components/ui/feedback'
import { Header } from './header'
import { Footer } from './footer'
import { useNavigationMemory, useScrollToTop } from './navigation-effects'
import { useAuthRedirectError } from './auth-redirect-error'
import { useSecondFactorGate } from './second-factor-gate'
import { useReviewNotifications } from './review-notifications'

export function RootLayout() {
  useScrollToTop()
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
      <main id="main" className="flex-1">
        <Suspense fallback={<Spinner label="Loading..." />}>
          <Outlet />
        </Suspense>
      </main>
      <Footer />
    </div>
  )
}
