// Each screen's document title (WCAG 2.4.2 "Page Titled"; issue 24). A fresh
// load of a shareable page gets its title from the server (the marketplace's
// server-filled pages); from then on the app keeps `document.title` in step
// with the screen: a screen that names itself sets its title while it is
// shown and gives the default back when it goes, so a title never outlives
// its screen.
import { useEffect } from 'react'
import { BRAND } from '@/config/constants'

/** The home page's title, and every screen's that does not name itself (as index.html and the server say it). */
export const DEFAULT_TITLE = `${BRAND} — templates for your workspace`

/** `{name} — Plinth Templates`, or the default without a name. */
export function pageTitle(name?: string | null): string {
  const trimmed = name?.trim()
  return trimmed ? `${trimmed} — ${BRAND}` : DEFAULT_TITLE
}

/**
 * Sets the document's title to `pageTitle(name)` while the calling screen is
 * shown; `undefined` (still loading) leaves the title as it is, so a
 * server-filled title stays while the screen's data arrives.
 */
export function usePageTitle(name: string | null | undefined): void {
  useEffect(() => {
    if (name !== undefined) document.title = pageTitle(name)
  }, [name])
  useEffect(() => () => {
    document.title = DEFAULT_TITLE
  }, [])
}
