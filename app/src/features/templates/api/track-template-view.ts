// Counts a view of the template (function track-template-view); on success the
// template is read again after VIEW_REREAD_DELAY_MS. A failure is only logged.
import { useEffect, useRef } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { functions } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import { VIEW_REREAD_DELAY_MS } from '@/config/constants'
import { templateQueryOptions } from './get-template'

export async function trackTemplateView(templateId: string): Promise<boolean> {
  const { error } = await functions.trackTemplateView(getSupabase(), {
    template_id: templateId,
    ip_address: null,
    user_agent: navigator.userAgent,
  })
  if (error) {
    logQuiet('tracking a template view', error)
    return false
  }
  return true
}

export function useTrackTemplateView(templateId: string, enabled: boolean) {
  const queryClient = useQueryClient()
  const tracked = useRef<string | null>(null)
  useEffect(() => {
    // Once per template (StrictMode's second effect run included); the
    // re-read is harmless after the page has gone, so it is not cancelled.
    if (!enabled || tracked.current === templateId) return
    tracked.current = templateId
    trackTemplateView(templateId)
      .then((ok) => {
        if (!ok) return
        setTimeout(() => {
          void queryClient.invalidateQueries({ queryKey: templateQueryOptions(templateId).queryKey })
        }, VIEW_REREAD_DELAY_MS)
      })
      .catch((error: unknown) => logQuiet('tracking a template view', error))
  }, [templateId, enabled, queryClient])
}
