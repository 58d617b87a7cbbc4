import { useEffect } from 'react'
import { Search, SearchX, X } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { EmptyState, LoadError, StillLoading } from '@/components/ui/feedback'
import { Input, Select } from '@/components/ui/field'
import { Container } from '@/components/ui/layout'
import { Pager } from '@/components/ui/pager'
import { count } from '@/lib/format'
import { PAGE_SIZE, usePageParam } from '@/lib/paging'
import { toastError } from '@/lib/toast'
import type { Category } from '@/lib/types'
import { useTemplates, type PriceFilter, type Sort } from '../api/get-templates'
import { DEFAULT_DISCOVER, useDiscoverFilters } from '../hooks/use-discover-filters'
import { FIRST_ROW, TemplateGrid, TemplateGridSkeleton } from './template-card'

export const SORT_LABELS: Record<Sort, string> = {
  newest: 'Newest',
  oldest: 'Oldest',
  'most-popular': 'Most Popular',
  'price-low': 'Price: Low to High',
  'price-high': 'Price: High to Low',
}
export const PRICE_LABELS: Record<PriceFilter, string> = { all: 'All Prices', free: 'Free', paid: 'Paid' }

export function DiscoverPage({
  categories,
  categoriesLoading,
  categoriesFailed = false,
}: {
  categories: Category[]
  categoriesLoading: boolean
  /** The categories could not be read: a category in the URL is unknown only once they are. */
  categoriesFailed?: boolean
}) {
  const { filters, searchText, setSearchText, update, clear } = useDiscoverFilters()
  const category = categories.find((c) => c.slug === filters.category)
  const waitingForCategory = filters.category !== 'all' && !category && categoriesLoading
  const categoryUnread = filters.category !== 'all' && !category && !categoriesLoading && categoriesFailed
  const unknownCategory = filters.category !== 'all' && !category && !categoriesLoading && !categoriesFailed
  const page = usePageParam()
  const { data, isLoading, isError } = useTemplates(
    { search: filters.search, categoryId: category?.id ?? 'all', price: filters.price, sort: filters.sort },
    page,
    !waitingForCategory && !unknownCategory && !categoryUnread,
  )
  useEffect(() => {
    if (isError) toastError('Failed to load templates')
  }, [isError])

  const chips: Array<{ key: string; label: string; clear: () => void }> = []
  if (filters.search) chips.push({ key: 'search', label: `Search: ${filters.search}`, clear: () => update({ search: '' }) })
  if (filters.category !== 'all')
    chips.push({ key: 'category', label: `Category: ${category?.name ?? filters.category}`, clear: () => update({ category: 'all' }) })
  if (filters.price !== 'all')
    chips.push({ key: 'price', label: `Price: ${PRICE_LABELS[filters.price]}`, clear: () => update({ price: 'all' }) })
  if (filters.sort !== DEFAULT_DISCOVER.sort)
    chips.push({ key: 'sort', label: `Sort: ${SORT_LABELS[filters.sort]}`, clear: () => update({ sort: 'newest' }) })
  const templates = unknownCategory ? [] : (data?.items ?? [])
  const total = unknownCategory ? 0 : (data?.total ?? 0)

  return (
    <Container className="py-10">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Discover Templates</h1>
      <p className="mt-1 text-slate-600">Search and filter the whole marketplace.</p>
      <div className="mt-6 grid gap-3 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm md:grid-cols-[1fr_auto_auto_auto_auto]">
        <div className="relative">
          <label htmlFor="discover-search" className="sr-only">Search templates</label>
          <Search className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" aria-hidden />
          <Input
            id="discover-search"
            type="search"
            placeholder="Search templates..."
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            className="pl-9"
          />
        </div>
        <label className="sr-only" htmlFor="discover-category">Category</label>
        <Select id="discover-category" value={filters.category} onChange={(e) => update({ category: e.target.value })}>
          <option value="all">All Categories</option>
          {/* An unknown slug from the URL is shown as such, not as "All Categories" (issue 15, item 9). */}
          {unknownCategory && (
            <option value={filters.category} disabled>Unknown category</option>
          )}
          {categories.map((c) => (
            <option key={c.id} value={c.slug}>{c.name}</option>
          ))}
        </Select>
        <label className="sr-only" htmlFor="discover-price">Price</label>
        <Select id="discover-price" value={filters.price} onChange={(e) => update({ price: e.target.value as PriceFilter })}>
          {(Object.keys(PRICE_LABELS) as PriceFilter[]).map((p) => (
            <option key={p} value={p}>{PRICE_LABELS[p]}</option>
          ))}
        </Select>
        <label className="sr-only" htmlFor="discover-sort">Sort</label>
        <Select id="discover-sort" value={filters.sort} onChange={(e) => update({ sort: e.target.value as Sort })}>
          {(Object.keys(SORT_LABELS) as Sort[]).map((s) => (
            <option key={s} value={s}>{SORT_LABELS[s]}</option>
          ))}
        </Select>
        <Button variant="outline" onClick={clear}>Clear Filters</Button>
      </div>
      {chips.length > 0 && (
        <ul aria-label="Active filters" className="mt-4 flex flex-wrap gap-2">
          {chips.map((chip) => (
            <li key={chip.key}>
              <button
                type="button"
                onClick={chip.clear}
                aria-label={`Remove filter ${chip.label}`}
                className="inline-flex items-center gap-1.5 rounded-full bg-brand-50 px-3 py-1 text-sm font-medium text-brand-800 ring-1 ring-brand-200 hover:bg-brand-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                {chip.label} <X className="h-3.5 w-3.5" aria-hidden />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-8">
        {/* The results' heading, for the page's outline: the cards' titles are h3 (axe heading-order). */}
        <h2 className="sr-only">Results</h2>
        {isLoading || waitingForCategory ? (
          <>
            <StillLoading />
            <TemplateGridSkeleton count={8} />
          </>
        ) : (isError && !data) || categoryUnread ? (
          <LoadError title="We couldn't load the templates" />
        ) : unknownCategory ? (
          // Our wording (the spec has none for an unknown category, issue 15 item 9).
          <EmptyState
            icon={<SearchX className="h-10 w-10" aria-hidden />}
            title="Category not found"
            description={`There is no category "${filters.category}".`}
            action={<Button variant="outline" onClick={() => update({ category: 'all' })}>Show all categories</Button>}
          />
        ) : total === 0 ? (
          <EmptyState
            icon={<SearchX className="h-10 w-10" aria-hidden />}
            title="No templates found"
            description="Try adjusting your filters or search terms"
          />
        ) : templates.length === 0 ? (
          // A page past the last one (an old link): say so, with the pager to go back.
          <>
            <EmptyState icon={<SearchX className="h-10 w-10" aria-hidden />} title="No templates on this page" description="This page is past the last one." />
            <Pager page={page} total={total} size={PAGE_SIZE} label="Templates" />
          </>
        ) : (
          <>
            <p className="mb-4 text-sm text-slate-600" aria-live="polite">
              {count(total, 'template')}
            </p>
            <TemplateGrid templates={templates} eager={FIRST_ROW} />
            <Pager page={page} total={total} size={PAGE_SIZE} label="Templates" />
          </>
        )}
      </div>
    </Container>
  )
}
