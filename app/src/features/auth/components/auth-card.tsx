import type { ReactNode } from 'react'
import type { LucideIcon } from 'lucide-react'

/** The auth screens' centred card: an icon, a heading, a line under it, and the content. */
export function AuthCard({ icon: Icon, title, subtitle, children }: { icon: LucideIcon; title: string; subtitle?: ReactNode; children?: ReactNode }) {
  return (
    <div className="flex min-h-[calc(100vh-4rem)] items-center justify-center bg-gradient-to-b from-brand-50 to-slate-50 px-4 py-12">
      <div className="w-full max-w-md rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <div className="mb-6 text-center">
          <span className="mx-auto mb-3 flex h-12 w-12 items-center justify-center rounded-xl bg-brand-600 text-white">
            <Icon className="h-6 w-6" aria-hidden />
          </span>
          <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
          {subtitle && <p className="mt-1 text-sm text-slate-600">{subtitle}</p>}
        </div>
        {children}
      </div>
    </div>
  )
}
