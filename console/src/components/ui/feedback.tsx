import type { ReactNode } from 'react'
import { AlertTriangle, Loader2 } from 'lucide-react'
import { cn } from '@/lib/format'
import { errorMessage } from '@/lib/api'

export function Spinner({ label, className }: { label?: string; className?: string }) {
  return (
    <div role="status" className={cn('flex items-center justify-center gap-2 py-8 text-slate-600', className)}>
      <Loader2 className="h-5 w-5 animate-spin text-brand-600" aria-hidden />
      <span className="text-sm">{label ?? 'Loading…'}</span>
    </div>
  )
}

export function Empty({ children, className }: { children: ReactNode; className?: string }) {
  return <p className={cn('rounded-xl border border-dashed border-slate-300 bg-white px-4 py-8 text-center text-sm text-slate-600', className)}>{children}</p>
}

/** An error shown in place (role=alert), with its text. */
export function ErrorAlert({ error, title, className, children }: { error?: unknown; title?: string; className?: string; children?: ReactNode }) {
  return (
    <div role="alert" className={cn('flex gap-2 rounded-xl border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800', className)}>
      <AlertTriangle className="mt-0.5 h-4 w-4 shrink-0" aria-hidden />
      <div className="min-w-0 [overflow-wrap:anywhere]">
        {title && <p className="font-semibold">{title}</p>}
        {error !== undefined && <p>{errorMessage(error)}</p>}
        {children}
      </div>
    </div>
  )
}
