// The server's run-time settings for the app, /_/app-config.json (anon key,
// Stripe's publishable key, the newsletter webhook). Read fresh each time:
// an operator's change needs no rebuild and no reload. Throws when the
// server does not answer with it; callers decide what a failure means.
import { env } from '@/config/env'
import { timedFetch } from './timed-fetch'

export async function readAppConfig(): Promise<Record<string, unknown>> {
  // Given up after REQUEST_TIMEOUT_MS, as every request to the server (lib/timed-fetch.ts).
  const response = await timedFetch()(`${env.apiOrigin}/_/app-config.json`, { cache: 'no-store' })
  if (!response.ok) throw new Error(`app-config answered ${response.status}`)
  const config: unknown = await response.json()
  return config && typeof config === 'object' ? (config as Record<string, unknown>) : {}
}
