// The newsletter's external automation webhook: the server's
// PLINTH_NEWSLETTER_WEBHOOK_URL, from /_/app-config.json
// (`newsletterWebhookUrl`, null when unset), else the build-time
// VITE_NEWSLETTER_WEBHOOK_URL (development). Read when the form is sent, so
// an operator's change needs no rebuild of the app.
import { env } from '@/config/env'
import { logQuiet } from '@/lib/log'

function httpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || !value.trim()) return null
  try {
    const url = new URL(value.trim())
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null
  } catch {
    return null
  }
}

export async function getNewsletterWebhookUrl(): Promise<string | null> {
  try {
    const response = await fetch(`${env.apiOrigin}/_/app-config.json`, { cache: 'no-store' })
    if (!response.ok) throw new Error(`app-config answered ${response.status}`)
    const config = (await response.json()) as { newsletterWebhookUrl?: unknown }
    const url = httpUrl(config.newsletterWebhookUrl)
    if (url) return url
  } catch (error) {
    logQuiet('reading the newsletter webhook', error)
  }
  return env.newsletterWebhookUrl
}
