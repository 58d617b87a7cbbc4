import { useEffect } from 'react'

/**
 * Sends a list shown past its last page (an old link, or the last rows of
 * that page gone meanwhile) to the last page there is, once the list's
 * length is known (`pages`: undefined while it is not).
 */
export function usePageInRange(page: number, pages: number | undefined, goTo: (page: number) => void) {
  useEffect(() => {
    if (pages !== undefined && page > pages) goTo(pages)
  }, [page, pages])
}
