// The receipt of a paid order (POST /api/paid-download-confirmation), sent
// after its download is validated; the server sends it once per order. A
// failure is only logged: the download itself is not held up by it.
import { api } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export async function sendPaidConfirmation(orderId: string, email: string): Promise<boolean> {
  const { error } = await api.paidDownloadConfirmation(getSupabase(), { orderId, email })
  if (error) {
    logQuiet('sending the paid-download confirmation', error)
    return false
  }
  return true
}
