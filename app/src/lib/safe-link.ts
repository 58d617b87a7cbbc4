// Where the app may send the browser for a link a server answer gave it (a
// download, a payment provider's onboarding page). The server already keeps
// template links to web links (the database's is_web_link check and the
// functions' web_link); this is the same rule again where the navigation
// happens, so that no answer (an older or a compromised server, a proxy) can
// make the app run `javascript:` or open `data:` in its own origin.
//
// Accepted: `https://...` with a host; `http://...` only while the app itself
// is served over http (development) or on the app's own origin; and a path of
// this site ('/...', not '//host' nor '/\host'). Nothing with whitespace,
// control characters or backslashes. Returns the absolute URL, else null.
export function safeLink(link: unknown, base: string = window.location.href): string | null {
  if (typeof link !== 'string' || link === '' || /[\s\p{Cc}\\]/u.test(link)) return null
  const absolute = /^https?:\/\/[^/]/i.test(link)
  const sitePath = /^\/[^/]/.test(link)
  if (!absolute && !sitePath) return null
  let url: URL
  let here: URL
  try {
    here = new URL(base)
    url = new URL(link, here)
  } catch {
    return null
  }
  if (url.protocol === 'https:') return url.href
  if (url.protocol === 'http:' && (here.protocol === 'http:' || url.origin === here.origin)) return url.href
  return null
}

/** What the app says when it refuses a link (our own wording: the spec has none). */
export const UNSAFE_LINK = 'This download link cannot be opened.'
