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
