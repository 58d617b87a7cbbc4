// Discover's filters live in the query string: search, category (slug, default
// 'all'), price (all, free, paid), sort (newest, oldest, most-popular,
// price-low, price-high). The search box writes to the URL 300 ms after the
// last keystroke. Deliberate changes (a select, a chip, Clear Filters) push a
// history entry so Back steps through them and stays on Discover; the
// debounced search replaces the entry (issue 15, item 10). Each of them
// drops `page`: the results start again at page 1.
import { useCallback, useEffect, useRef, useState } from 'react'
import { useSearchParams } from 'react-router'
import { SEARCH_DEBOUNCE_MS } from '@/config/constants'
import { PRICES, SORTS, type PriceFilter, type Sort } from '../api/get-templates'

export interface DiscoverParams {
  search: string
  category: string
  price: PriceFilter
  sort: Sort
}

export const DEFAULT_DISCOVER: DiscoverParams = { search: '', category: 'all', price: 'all', sort: 'newest' }

export function readDiscoverParams(params: URLSearchParams): DiscoverParams {
  const price = params.get('price') as PriceFilter | null
  const sort = params.get('sort') as Sort | null
  return {
    search: params.get('search') ?? '',
    category: params.get('category') || 'all',
    price: price && PRICES.includes(price) ? price : 'all',
    sort: sort && SORTS.includes(sort) ? sort : 'newest',
  }
}

export function useDiscoverFilters() {
  const [params, setParams] = useSearchParams()
  const filters = readDiscoverParams(params)
  const [searchText, setSearchText] = useState(filters.search)
  const lastWritten = useRef(filters.search)

  const update = useCallback(
    (patch: Partial<DiscoverParams>, { replace = false }: { replace?: boolean } = {}) => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current)
          // A new filter, sort or search starts again from page 1 (issue 44, item 4).
          next.delete('page')
          for (const [key, value] of Object.entries(patch)) {
            const isDefault = value === '' || value === DEFAULT_DISCOVER[key as keyof DiscoverParams]
            if (isDefault) next.delete(key)
            else next.set(key, String(value))
          }
          return next
        },
        { replace },
      )
    },
    [setParams],
  )

  // The URL changed from elsewhere (a chip, Clear Filters, a header link): follow it.
  useEffect(() => {
    if (filters.search !== lastWritten.current) {
      lastWritten.current = filters.search
      setSearchText(filters.search)
    }
  }, [filters.search])

  // Debounced write of the search box to the URL.
  useEffect(() => {
    if (searchText.trim() === filters.search.trim()) return
    const timer = setTimeout(() => {
      lastWritten.current = searchText.trim()
      update({ search: searchText.trim() }, { replace: true })
    }, SEARCH_DEBOUNCE_MS)
    return () => clearTimeout(timer)
  }, [searchText, filters.search, update])

  const clear = useCallback(() => {
    lastWritten.current = ''
    setSearchText('')
    setParams(new URLSearchParams())
  }, [setParams])

  return { filters, searchText, setSearchText, update, clear }
}
