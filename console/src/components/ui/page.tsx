import type { ReactNode } from 'react'
import { cn } from '@/lib/format'

/** The page's heading (h1) with its actions. */
export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-5 flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 [overflow-wrap:anywhere]">{title}</h1>
        {description && <p className="mt-1 text-sm text-slate-600">{description}</p>}
      </div>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  )
}

export function Card({ className, children, ...rest }: { className?: string; children: ReactNode } & React.HTMLAttributes<HTMLElement>) {
  return (
    <section className={cn('min-w-0 rounded-2xl border border-slate-200 bg-white p-4', className)} {...rest}>
      {children}
    </section>
  )
}

export function SectionTitle({ id, children, actions }: { id?: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
      <h2 id={id} className="text-base font-semibold text-slate-900">
        {children}
      </h2>
      {actions && <div className="flex flex-wrap gap-2">{actions}</div>}
    </div>
  )
}
