import { useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { BadgeCheck, Search, Users } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { EmptyState, LoadError, Skeleton, StillLoading } from '@/components/ui/feedback'
import { Input, Select } from '@/components/ui/field'
import { Container } from '@/components/ui/layout'
import { Pager } from '@/components/ui/pager'
import { SEARCH_DEBOUNCE_MS } from '@/config/constants'
import { formatCompact } from '@/lib/format'
import { PAGE_SIZE, usePageParam } from '@/lib/paging'
import { toastError } from '@/lib/toast'
import { personName } from '@/lib/types'
import { CREATOR_SORTS, useCreators, type Creator, type CreatorSort } from '../api/get-creators'

const SORT_LABELS: Record<CreatorSort, string> = {
  downloads: 'Most Downloads',
  templates: 'Most Templates',
  name: 'Name',
  certified: 'Certified',
}

function CreatorCard({ creator }: { creator: Creator }) {
  const name = personName(creator)
  return (
    <article className="relative flex h-full flex-col rounded-2xl border border-slate-200 bg-white p-6 shadow-sm transition hover:shadow-md focus-within:ring-2 focus-within:ring-brand-500">
      <div className="flex items-center gap-4">
        <Avatar url={creator.avatar_url} name={name} size="lg" />
        <div className="min-w-0">
          <h2 className="flex items-center gap-1 truncate font-semibold text-slate-900">
            <Link to={`/profile/${creator.id}`} className="after:absolute after:inset-0 focus-visible:outline-none">
              {name}
            </Link>
            {creator.is_certified && <BadgeCheck className="h-4 w-4 text-brand-600" aria-label="Certified" />}
          </h2>
          {creator.username && <p className="truncate text-sm text-slate-600">@{creator.username}</p>}
        </div>
      </div>
      <p className="mt-4 line-clamp-2 min-h-[2.5rem] text-sm text-slate-700">{creator.bio || 'No bio yet.'}</p>
      <dl className="mt-4 grid grid-cols-2 gap-3 border-t border-slate-100 pt-4 text-sm">
        <div>
          <dt className="text-slate-600">Templates</dt>
          <dd className="font-semibold text-slate-900">{creator.template_count}</dd>
        </div>
        <div>
          <dt className="text-slate-600">Downloads</dt>
          <dd className="font-semibold text-slate-900">{formatCompact(creator.total_downloads)}</dd>
        </div>
      </dl>
    </article>
  )
}

/** `value`, once it has stopped changing for `ms`. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value)
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms)
    return () => clearTimeout(timer)
  }, [value, ms])
  return settled
}

export function CreatorsPage() {
  const [params, setParams] = useSearchParams()
  const search = params.get('search') ?? ''
  const sortParam = params.get('sort') as CreatorSort | null
  const sort: CreatorSort = sortParam && CREATOR_SORTS.includes(sortParam) ? sortParam : 'downloads'
  const page = usePageParam()
  // The server searches: asked once the typing settles.
  const query = useSettled(search.trim(), SEARCH_DEBOUNCE_MS)
  const { data, isLoading, isError } = useCreators(query, sort, page)
  useEffect(() => {
    if (isError) toastError('Failed to load creators')
  }, [isError])
  // A new search or sort starts again from page 1.
  const set = (key: string, value: string, fallback: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current)
        next.delete('page')
        if (value === fallback) next.delete(key)
        else next.set(key, value)
        return next
      },
      { replace: true },
    )
  const shown = data?.items ?? []
  const total = data?.total ?? 0
  return (
    <Container className="py-10">
      <h1 className="text-3xl font-bold tracking-tight text-slate-900">Creators</h1>
      <p className="mt-1 text-slate-600">The people behind the templates.</p>
      <div className="mt-6 flex flex-col gap-3 sm:flex-row">
        <div className="relative flex-1">
          <label htmlFor="creator-search" className="sr-only">Search creators</label>
          <Search className="pointer-events-none absolute left-3 top-1/2 h-4 w-4 -translate-y-1/2 text-slate-400" aria-hidden />
          <Input id="creator-search" type="search" placeholder="Search creators..." value={search} onChange={(e) => set('search', e.target.value, '')} className="pl-9" />
        </div>
        <label htmlFor="creator-sort" className="sr-only">Sort creators</label>
        <Select id="creator-sort" value={sort} onChange={(e) => set('sort', e.target.value, 'downloads')} className="sm:w-56">
          {CREATOR_SORTS.map((s) => (
            <option key={s} value={s}>{SORT_LABELS[s]}</option>
          ))}
        </Select>
      </div>
      <div className="mt-8">
        {isLoading ? (
          <>
            <StillLoading />
            <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
              {[0, 1, 2].map((i) => <Skeleton key={i} className="h-52" />)}
            </div>
          </>
        ) : isError && !data ? (
          <LoadError title="We couldn't load the creators" />
        ) : total === 0 && !query ? (
          <EmptyState icon={<Users className="h-10 w-10" aria-hidden />} title="No creators available yet" description="Be the first to share your templates!" />
        ) : total === 0 ? (
          <EmptyState icon={<Search className="h-10 w-10" aria-hidden />} title={`No creators found matching "${query}"`} description="Try adjusting your search terms" />
        ) : (
          <>
            {shown.length === 0 ? (
              <EmptyState icon={<Users className="h-10 w-10" aria-hidden />} title="No creators on this page" description="This page is past the last one." />
            ) : (
              <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3" data-testid="creator-grid">
                {shown.map((c) => (
                  <li key={c.id}><CreatorCard creator={c} /></li>
                ))}
              </ul>
            )}
            <Pager page={page} total={total} size={PAGE_SIZE} label="Creators" />
          </>
        )}
      </div>
    </Container>
  )
}
