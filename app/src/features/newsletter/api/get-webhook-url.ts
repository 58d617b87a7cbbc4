// The newsletter's external automation webhook: the server's
// PLINTH_NEWSLETTER_WEBHOOK_URL, from /_/app-config.json
// (`newsletterWebhookUrl`, null when unset), else the build-time
// VITE_NEWSLETTER_WEBHOOK_URL (development). Read when the form is sent, so
// an operator's change needs no rebuild of the app.
import { env } from '@/config/env'
import { readAppConfig } from '@/lib/app-config'
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
    const url = httpUrl((await readAppConfig()).newsletterWebhookUrl)
    if (url) return url
  } catch (error) {
    logQuiet('reading the newsletter webhook', error)
  }
  return env.newsletterWebhookUrl
}
