// Start-up configuration, read once and checked.
//
// In production the app is served by plinth on the API's own origin; in
// development vite forwards the API paths to VITE_PLINTH_URL, so the app
// always talks to its own origin.

function optionalUrl(name: string, value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value !== 'string') throw new Error(`${name} must be a string`)
  try {
    return new URL(value).toString()
  } catch {
    throw new Error(`${name} is not a URL: ${value}`)
  }
}

export const env = {
  /** The origin of the plinth API (the page's own origin). */
  apiOrigin: typeof window === 'undefined' ? 'http://localhost' : window.location.origin,
  /** The external automation webhook tried first by the newsletter form (optional). */
  newsletterWebhookUrl: optionalUrl('VITE_NEWSLETTER_WEBHOOK_URL', import.meta.env.VITE_NEWSLETTER_WEBHOOK_URL),
}
