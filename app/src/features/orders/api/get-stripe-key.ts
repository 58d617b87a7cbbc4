// Stripe's publishable key, from the server's /_/app-config.json
// (`stripePublishableKey`, null when the server has none). Read only on the
// Stripe path of the checkout.
import { env } from '@/config/env'
import { logQuiet } from '@/lib/log'

export async function getStripePublishableKey(): Promise<string | null> {
  try {
    const response = await fetch(`${env.apiOrigin}/_/app-config.json`, { cache: 'no-store' })
    if (!response.ok) throw new Error(`app-config answered ${response.status}`)
    const config = (await response.json()) as { stripePublishableKey?: unknown }
    const key = config.stripePublishableKey
    return typeof key === 'string' && key.trim() ? key.trim() : null
  } catch (error) {
    logQuiet('reading the Stripe publishable key', error)
    return null
  }
}
