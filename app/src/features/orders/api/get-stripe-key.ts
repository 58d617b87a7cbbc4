// Stripe's publishable key, from the server's /_/app-config.json
// (`stripePublishableKey`, null when the server has none). Read only on the
// Stripe path of the checkout.
import { readAppConfig } from '@/lib/app-config'
import { logQuiet } from '@/lib/log'

export async function getStripePublishableKey(): Promise<string | null> {
  try {
    const key = (await readAppConfig()).stripePublishableKey
    return typeof key === 'string' && key.trim() ? key.trim() : null
  } catch (error) {
    logQuiet('reading the Stripe publishable key', error)
    return null
  }
}
