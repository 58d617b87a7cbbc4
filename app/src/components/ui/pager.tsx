// The pager under a paged list (issue 44, item 4): "Showing 1–24 of 211",
// then Previous, the page numbers (the first, the last and the current one
// with its neighbours, gaps as "…") and Next. Every page is a link to
// `?page=N` with the other parameters kept, so it can be opened in a new
// tab or shared.
import { Link, useSearchParams } from 'react-router'
import { ChevronLeft, ChevronRight } from 'lucide-react'
import { cn, formatCount } from '@/lib/format'
import { pageCount, searchWithPage } from '@/lib/paging'

/** The page numbers to show, `null` for a gap: 1 … 4 5 6 … 9. */
export function pageItems(page: number, pages: number): Array<number | null> {
  const wanted = new Set([1, pages, page - 1, page, page + 1].filter((n) => n >= 1 && n <= pages))
  // A gap of one page shows that page instead of "…".
  if (wanted.has(3) && pages >= 3) wanted.add(2)
  if (wanted.has(pages - 2) && pages >= 3) wanted.add(pages - 1)
  const sorted = [...wanted].sort((a, b) => a - b)
  const items: Array<number | null> = []
  for (const n of sorted) {
    const previous = items[items.length - 1]
    if (typeof previous === 'number' && n - previous > 1) items.push(null)
    items.push(n)
  }
  return items
}

/** "Showing 25–48 of 211" (en dash); "Showing 0 of 0" for an empty list. */
export function showingText(page: number, size: number, total: number): string {
  if (total <= 0) return 'Showing 0 of 0'
  const from = Math.min((page - 1) * size + 1, total)
  const to = Math.min(page * size, total)
  return `Showing ${formatCount(from)}–${formatCount(to)} of ${formatCount(total)}`
}

const cell =
  'inline-flex h-10 min-w-10 items-center justify-center gap-1 rounded-lg border px-3 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500'

export function Pager({ page, total, size, label }: { page: number; total: number; size: number; label: string }) {
  const [params] = useSearchParams()
  const pages = pageCount(total, size)
  const to = (n: number) => ({ search: searchWithPage(params, n) })
  return (
    <div className="mt-8 flex flex-col items-center gap-3" data-testid="pager">
      <p className="text-sm text-slate-600" aria-live="polite" data-testid="showing">
        {showingText(Math.min(page, pages), size, total)}
      </p>
      {pages > 1 && (
        <nav aria-label={`${label} pages`}>
          <ul className="flex flex-wrap items-center justify-center gap-1.5">
            <li>
              {page > 1 ? (
                <Link to={to(Math.min(page - 1, pages))} rel="prev" className={cn(cell, 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50')}>
                  <ChevronLeft className="h-4 w-4" aria-hidden />
                  <span className="max-sm:sr-only">Previous</span>
                </Link>
              ) : (
                <span aria-disabled="true" className={cn(cell, 'border-slate-200 text-slate-400')}>
                  <ChevronLeft className="h-4 w-4" aria-hidden />
                  <span className="max-sm:sr-only">Previous</span>
                </span>
              )}
            </li>
            {pageItems(page, pages).map((n, i) =>
              n === null ? (
                <li key={`gap-${i}`} aria-hidden className="px-1 text-slate-500">…</li>
              ) : (
                <li key={n}>
                  <Link
                    to={to(n)}
                    aria-label={`Page ${n}`}
                    aria-current={n === page ? 'page' : undefined}
                    className={cn(
                      cell,
                      n === page ? 'border-brand-600 bg-brand-600 text-white' : 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50',
                    )}
                  >
                    {n}
                  </Link>
                </li>
              ),
            )}
            <li>
              {page < pages ? (
                <Link to={to(page + 1)} rel="next" className={cn(cell, 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50')}>
                  <span className="max-sm:sr-only">Next</span>
                  <ChevronRight className="h-4 w-4" aria-hidden />
                </Link>
              ) : (
                <span aria-disabled="true" className={cn(cell, 'border-slate-200 text-slate-400')}>
                  <span className="max-sm:sr-only">Next</span>
                  <ChevronRight className="h-4 w-4" aria-hidden />
                </span>
              )}
            </li>
          </ul>
        </nav>
      )}
    </div>
  )
}
