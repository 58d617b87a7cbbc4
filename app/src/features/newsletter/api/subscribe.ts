// Newsletter sign-up: the external automation webhook first (when one is
// configured: the server's PLINTH_NEWSLETTER_WEBHOOK_URL), then the
// subscribe-to-newsletter function; success if either answers ok.
import { useMutation } from '@tanstack/react-query'
import { functions } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { timedFetch } from '@/lib/timed-fetch'
import { getNewsletterWebhookUrl } from './get-webhook-url'

export async function subscribeToNewsletter(
  input: { name: string; email: string },
  webhookUrl?: string | null,
): Promise<void> {
  if (webhookUrl === undefined) webhookUrl = await getNewsletterWebhookUrl()
  if (webhookUrl) {
    try {
      // A stalled webhook is given up (lib/timed-fetch.ts), then the function is tried.
      const response = await timedFetch()(webhookUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: input.email, Name: input.name }),
      })
      if (response.ok) return
    } catch (error) {
      logQuiet('the newsletter webhook', error)
    }
  }
  const { error } = await functions.subscribeToNewsletter(getSupabase(), { email: input.email, name: input.name })
  if (error) throw error
}

export function useSubscribeToNewsletter() {
  return useMutation({ mutationFn: (input: { name: string; email: string }) => subscribeToNewsletter(input) })
}
