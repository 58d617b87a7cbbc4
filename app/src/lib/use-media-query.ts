// Whether a CSS media query matches, kept current as the window changes.
import { useSyncExternalStore } from 'react'

export function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (changed) => {
      const list = window.matchMedia(query)
      list.addEventListener('change', changed)
      return () => list.removeEventListener('change', changed)
    },
    () => window.matchMedia(query).matches,
    () => false,
  )
}

/** Below Tailwind's `md` breakpoint (768 px): a phone. */
export const PHONE_QUERY = '(max-width: 767.98px)'

/** The visitor asked for less motion (issue 24): no pointer-following lens, no smooth scrolling. */
export const REDUCED_MOTION_QUERY = '(prefers-reduced-motion: reduce)'

/** 'smooth', or 'auto' (a jump) for a visitor who asked for less motion: for scrollIntoView and scrollTo. */
export function scrollMotion(): ScrollBehavior {
  return typeof window.matchMedia === 'function' && window.matchMedia(REDUCED_MOTION_QUERY).matches ? 'auto' : 'smooth'
}
