// Which social providers the auth server has enabled: the `external` map of
// `GET /auth/v1/settings` (`{ github: true, google: false, ... }`). Only
// those get a button; while loading or when the settings cannot be read the
// page offers none (issue 15, item 3).
import { useQuery } from '@tanstack/react-query'
import { env } from '@/config/env'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { SOCIAL_PROVIDERS, type SocialProvider } from './sign-in-with-provider'

/** The spec's providers that `external` (the settings' map) marks enabled. */
export function enabledProviders(external: unknown): SocialProvider[] {
  if (!external || typeof external !== 'object' || Array.isArray(external)) return []
  const map = external as Record<string, unknown>
  return SOCIAL_PROVIDERS.filter((p) => map[p.id] === true).map((p) => p.id)
}

export async function getEnabledProviders(): Promise<SocialProvider[]> {
  // The platform's gateway wants the API key on every auth call.
  const key = (getSupabase() as unknown as { supabaseKey?: unknown }).supabaseKey
  const response = await fetch(`${env.apiOrigin}/auth/v1/settings`, {
    headers: typeof key === 'string' ? { apikey: key } : {},
  })
  if (!response.ok) throw new Error(`auth settings answered ${response.status}`)
  const settings = (await response.json()) as { external?: unknown } | null
  return enabledProviders(settings?.external)
}

export function useEnabledProviders() {
  return useQuery({
    queryKey: ['auth-settings', 'providers'],
    queryFn: async () => {
      try {
        return await getEnabledProviders()
      } catch (error) {
        logQuiet('reading the enabled sign-in providers', error)
        throw error
      }
    },
    staleTime: 5 * 60_000,
  })
}
