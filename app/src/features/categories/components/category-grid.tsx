import { Link } from 'react-router'
import { Badge } from '@/components/ui/badge'
import { templateCount } from '@/lib/format'
import type { Category } from '@/lib/types'
import { categoryLook } from './category-tiles'

export function CategoryGrid({ categories, counts }: { categories: Category[]; counts: Record<string, number> }) {
  return (
    <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
      {categories.map((c) => {
        const { icon: Icon, tone } = categoryLook(c.slug)
        return (
          <li key={c.id}>
            <Link
              to={`/category/${c.slug}`}
              className="flex h-full flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition hover:-translate-y-0.5 hover:shadow-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
            >
              <div className="flex items-start justify-between gap-3">
                <span className={`flex h-12 w-12 items-center justify-center rounded-xl ${tone}`}>
                  <Icon className="h-6 w-6" aria-hidden />
                </span>
                <Badge tone="brand">{templateCount(counts[c.id] ?? 0)}</Badge>
              </div>
              <h2 className="mt-4 text-lg font-semibold text-slate-900">{c.name}</h2>
              {c.description && <p className="mt-1 text-sm text-slate-600">{c.description}</p>}
            </Link>
          </li>
        )
      })}
    </ul>
  )
}
