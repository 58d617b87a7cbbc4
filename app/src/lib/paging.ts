// Range paging of the browse lists (issue 44, item 4): Discover, a category,
// Creators and a profile's templates show PAGE_SIZE items a page, read with
// PostgREST's `.range()` and an exact count. The page number lives in the
// query string (`?page=N`, absent for page 1), so Back and shared links work;
// a filter change drops it (back to page 1).
import { useEffect, useRef } from 'react'
import { useSearchParams } from 'react-router'

export const PAGE_SIZE = 24

/** One page of a list and the number of items of the whole list. */
export interface Paged<T> {
  items: T[]
  total: number
}

/** `?page=N` as a page number: 1 when absent or not a positive whole number. */
export function readPage(params: URLSearchParams): number {
  const raw = params.get('page')
  if (!raw || !/^\d{1,6}$/.test(raw)) return 1
  const n = Number(raw)
  return n >= 1 ? n : 1
}

/** The `.range(from, to)` of a page (both ends included). */
export function pageRange(page: number, size: number = PAGE_SIZE): [number, number] {
  const from = (Math.max(1, page) - 1) * size
  return [from, from + size - 1]
}

export function pageCount(total: number, size: number = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / size))
}

/** PostgREST's answer to a range past the end of the list (416). */
export function isRangePastEnd(error: unknown): boolean {
  return !!error && typeof error === 'object' && (error as { code?: unknown }).code === 'PGRST103'
}

/** What awaiting a counted PostgREST select answers (only what paging reads of it). */
interface CountedAnswer {
  data?: unknown
  error: unknown
  count: number | null
}

/** A list's query once in its order: what `fetchPage` reads a range of. */
interface RangeQuery {
  range(from: number, to: number): PromiseLike<CountedAnswer>
}

/** A query that can be put in order, by one column then another. */
interface Orderable<Q> {
  order(column: string, options: { ascending: boolean }): Q
}

/**
 * The tie-break of a list shown newest first: by `created_at` descending,
 * then by `id`, so items with equal keys keep one order and every item is on
 * exactly one page.
 */
export function newestFirst<Q extends Orderable<Q>>(query: Q): Q {
  return query.order('created_at', { ascending: false }).order('id', { ascending: true })
}

/**
 * One page of a list, read with `.range()` and an exact count, as its rows
 * (still to be turned into items) and the number of items of the whole list.
 * `select(columns, head)` makes the list's filtered query, selected with
 * `{ count: 'exact', head }`; `order` puts it in the list's order, which ends
 * on a unique key (`newestFirst` does). A page past the end (an old link,
 * fewer items now) has no rows, with the true count read again.
 */
export async function fetchPage<Q extends PromiseLike<CountedAnswer>>(
  select: (columns: string, head: boolean) => Q,
  columns: string,
  order: (query: Q) => RangeQuery,
  page: number,
): Promise<Paged<unknown>> {
  const [from, to] = pageRange(page)
  const { data, error, count } = await order(select(columns, false)).range(from, to)
  if (isRangePastEnd(error)) {
    const total = await select('id', true)
    if (total.error) throw total.error
    return { items: [], total: total.count ?? 0 }
  }
  if (error) throw error
  return { items: (data ?? []) as unknown[], total: count ?? 0 }
}

/** The search string of `params` showing `page` (page 1 has no `page`). */
export function searchWithPage(params: URLSearchParams, page: number): string {
  const next = new URLSearchParams(params)
  if (page <= 1) next.delete('page')
  else next.set('page', String(page))
  const text = next.toString()
  return text ? `?${text}` : ''
}

/**
 * The page of the current URL. When it changes (the pager, Back), the window
 * goes back to the top of the list, so the new page is read from its start.
 */
export function usePageParam(): number {
  const [params] = useSearchParams()
  const page = readPage(params)
  const last = useRef(page)
  useEffect(() => {
    if (last.current === page) return
    last.current = page
    window.scrollTo(0, 0)
  }, [page])
  return page
}
