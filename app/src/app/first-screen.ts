// The code of the screen a visit opens on, asked for at start-up (src/main.tsx)
// beside the app's own code and the client's configuration, instead of once
// the app has loaded and its router has rendered: one round trip less before
// the first screen on a slow phone connection (issue 24). Only the public
// screens people land on from search engines and shared links; the same
// import() calls as the lazy routes of routes.tsx, so the same chunks.
const FIRST_SCREENS: Array<{ name: string; path: RegExp; load: () => Promise<unknown> }> = [
  { name: 'home', path: /^\/$/, load: () => import('./routes/home') },
  { name: 'template', path: /^\/template\/[^/]+\/?$/, load: () => import('./routes/template') },
  { name: 'discover', path: /^\/discover\/?$/, load: () => import('./routes/discover') },
  { name: 'category', path: /^\/category\/[^/]+\/?$/, load: () => import('./routes/category') },
  { name: 'profile', path: /^\/profile\/[^/]+\/?$/, load: () => import('./routes/profile') },
]

/** Starts loading the screen of `pathname` when it is one of them; returns its name (else null). */
export function preloadFirstScreen(pathname: string): string | null {
  const screen = FIRST_SCREENS.find((s) => s.path.test(pathname))
  if (!screen) return null
  // A failure shows when the route itself loads it (its error boundary).
  screen.load().catch(() => {})
  return screen.name
}
