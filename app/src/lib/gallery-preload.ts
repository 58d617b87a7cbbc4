// The template page's head preloads its gallery's first image
// (crates/marketplace/src/pages/preload.rs), under the URL the gallery asks
// for. The gallery itself appears only once the template's row has arrived,
// which on a slow phone connection is more than a few seconds after the
// page's load event: Chromium then warns that the preload was not used, and
// the image sits unseen meanwhile (issue 44). So the page's loading state
// shows that image already, in the gallery's place.
//
// Only on the page the visit opened on: the link stays in the head after the
// app moves to another template, where it would be the wrong image.

/** The path this document was loaded at (read when the app's code first loads this module). */
const openedAt = typeof window === 'undefined' ? null : window.location.pathname

/** The preloaded gallery image of the template page at `pathname`, or null. */
export function preloadedGalleryImage(pathname: string = window.location.pathname): string | null {
  if (openedAt === null || pathname !== openedAt) return null
  const link = document.head.querySelector<HTMLLinkElement>('link[rel="preload"][as="image"]')
  return link?.href || null
}
