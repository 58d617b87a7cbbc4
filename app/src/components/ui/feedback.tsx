import { useEffect, useState, type ReactNode } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { Loader2, RefreshCw, WifiOff } from 'lucide-react'
import { SLOW_LOADING_NOTICE_MS } from '@/config/constants'
import { cn } from '@/lib/format'
import { Button } from './button'

export function Spinner({ label, className }: { label?: string; className?: string }) {
  const slow = useSlow()
  return (
    <div role="status" className={cn('flex flex-col items-center justify-center gap-3 py-12 text-slate-600', className)}>
      <Loader2 className="h-8 w-8 animate-spin text-brand-600" aria-hidden />
      <span className={label ? 'text-sm' : 'sr-only'}>{label ?? 'Loading...'}</span>
      {slow && <span className="text-sm">{STILL_LOADING_TEXT}</span>}
    </div>
  )
}

/** What a loading state adds when the server is slow (after SLOW_LOADING_NOTICE_MS). */
export const STILL_LOADING_TEXT = 'Still working on it: the server is taking longer than usual.'

/** True once the component has been shown for SLOW_LOADING_NOTICE_MS. */
function useSlow(): boolean {
  const [slow, setSlow] = useState(false)
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), SLOW_LOADING_NOTICE_MS)
    return () => clearTimeout(timer)
  }, [])
  return slow
}

/**
 * The slow-server line for a loading state drawn with skeletons (which are
 * hidden from assistive technology): a polite live region, empty until the
 * load has taken SLOW_LOADING_NOTICE_MS.
 */
export function StillLoading({ className }: { className?: string }) {
  const slow = useSlow()
  return (
    <p aria-live="polite" className={cn('text-center text-sm text-slate-600', slow && 'mb-4', className)}>
      {slow ? STILL_LOADING_TEXT : ''}
    </p>
  )
}

/**
 * The retry state (issue 24): what a screen, or a section of one, shows when
 * its data could not be read (the server unreachable, slow past the time
 * limit, or failing) and there is nothing loaded to show instead. Never for
 * "no such row": a screen shows its not-found text for that.
 *
 * "Try again" refetches every query of the page that failed (a whole page
 * recovers with one press), or calls `onRetry` when given; it reads "Trying
 * again..." until they have settled (a query with nothing loaded shows its
 * screen's loading state meanwhile instead).
 */
export function LoadError({
  title = "We couldn't load this page",
  description = 'Check your connection and try again.',
  onRetry,
  compact = false,
  className,
}: {
  title?: string
  description?: string
  onRetry?: () => unknown
  /** A section's smaller box (home sections), rather than a page's. */
  compact?: boolean
  className?: string
}) {
  const queryClient = useQueryClient()
  const [busy, setBusy] = useState(false)
  const retry = async () => {
    setBusy(true)
    try {
      await (onRetry
        ? onRetry()
        : queryClient.refetchQueries({ type: 'active', predicate: (q) => q.state.status === 'error' }))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div
      role="alert"
      data-testid="load-error"
      className={cn(
        'flex flex-col items-center justify-center gap-2 rounded-2xl border border-amber-200 bg-amber-50 px-6 text-center',
        compact ? 'py-8' : 'py-14',
        className,
      )}
    >
      <WifiOff className={cn('mb-1 text-amber-700', compact ? 'h-7 w-7' : 'h-10 w-10')} aria-hidden />
      <p className={cn('font-semibold text-slate-900', compact ? 'text-base' : 'text-lg')}>{title}</p>
      <p className="max-w-md text-sm text-slate-700">{description}</p>
      {/* Not `disabled` while busy: the button keeps the focus it was pressed with. */}
      <Button
        variant="outline"
        className="mt-3 aria-disabled:opacity-60"
        onClick={() => void (busy || retry())}
        aria-disabled={busy}
        aria-busy={busy}
      >
        <RefreshCw className={cn('h-4 w-4', busy && 'animate-spin')} aria-hidden />
        {busy ? 'Trying again...' : 'Try again'}
      </Button>
    </div>
  )
}

export function EmptyState({
  title,
  titleAs: Title = 'p',
  description,
  icon,
  action,
  className,
}: {
  title: string
  /**
   * The title's element. A state that stands for the whole page (a not-found
   * page) gives `h1`: the page's level-one heading (axe page-has-heading-one).
   */
  titleAs?: 'p' | 'h1' | 'h2'
  description?: string
  icon?: ReactNode
  action?: ReactNode
  className?: string
}) {
  return (
    <div
      className={cn(
        'flex flex-col items-center justify-center gap-2 rounded-2xl border border-dashed border-slate-300 bg-white px-6 py-14 text-center',
        className,
      )}
    >
      {icon && <div className="mb-2 text-slate-400">{icon}</div>}
      <Title className="text-lg font-semibold text-slate-900">{title}</Title>
      {description && <p className="max-w-md text-sm text-slate-600">{description}</p>}
      {action && <div className="mt-4">{action}</div>}
    </div>
  )
}

export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden className={cn('animate-pulse rounded-lg bg-slate-200', className)} />
}
