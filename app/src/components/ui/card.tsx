import { useId, type ReactNode } from 'react'
import { cn } from '@/lib/format'

/**
 * A card of a dashboard screen (Settings, Sales...): a region named by its
 * title, with an optional description and an action beside the title.
 * `compact` pads it less on a phone and lets it shrink inside a grid.
 */
export function Card({
  title,
  description,
  action,
  compact = false,
  className,
  children,
}: {
  title: ReactNode
  description?: ReactNode
  action?: ReactNode
  compact?: boolean
  className?: string
  children?: ReactNode
}) {
  const id = useId()
  return (
    <section
      aria-labelledby={id}
      className={cn(compact && 'min-w-0', 'rounded-2xl border border-slate-200 bg-white', compact ? 'p-4' : 'p-5', 'shadow-sm sm:p-6', className)}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 id={id} className="flex items-center gap-2 text-lg font-semibold text-slate-900">{title}</h2>
          {description && <p className="mt-1 text-sm text-slate-600">{description}</p>}
        </div>
        {action}
      </div>
      {children && <div className="mt-4">{children}</div>}
    </section>
  )
}
