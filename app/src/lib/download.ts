// How the app follows a download link a server answered (a free order's, an
// order's Download File): a file of this site's storage is saved as an
// attachment and the page stays; any other web link (a workspace-app
// template, a file the site serves elsewhere) opens in a new tab, never in
// this one (issue 15, item 16). What is not a web link (`javascript:`,
// `data:`...) is refused, by the rule of safe-link.
import { browser } from './browser'
import { safeLink, UNSAFE_LINK } from './safe-link'

export type DownloadTarget = { href: string; kind: 'file' | 'web' }

/** Whether an absolute URL is a file of this site's storage (a signed or public object URL). */
export function isStoredFile(url: string): boolean {
  try {
    const { origin, pathname } = new URL(url)
    return origin === window.location.origin && pathname.startsWith('/storage/v1/object/')
  } catch {
    return false
  }
}

/** Where a link leads and how it is followed, or null when it may not be followed. */
export function downloadTarget(link: unknown): DownloadTarget | null {
  const href = safeLink(link)
  if (!href) return null
  return { href, kind: isStoredFile(href) ? 'file' : 'web' }
}

/** Follows a download link (see above); throws UNSAFE_LINK for one that may not be followed. */
export function followDownload(link: unknown): DownloadTarget {
  const target = downloadTarget(link)
  if (!target) throw new Error(UNSAFE_LINK)
  if (target.kind === 'file') browser.download(target.href)
  else browser.openTab(target.href)
  return target
}
