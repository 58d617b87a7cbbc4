// Confirms a payment of the simulated provider (a server without a Stripe
// key) through /api/simulated-payments/{id}/confirm; the server then marks
// the order paid, as Stripe's webhook would.
import { useMutation } from '@tanstack/react-query'
import { api, type CreatePaymentIntentResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

/** The payment's id: the last segment of `confirmUrl`'s path, else the part of the secret before `_secret_`. */
export function simulatedPaymentId(payment: Pick<CreatePaymentIntentResponse, 'clientSecret' | 'confirmUrl'>): string {
  if (payment.confirmUrl) {
    try {
      const segments = new URL(payment.confirmUrl, 'http://localhost').pathname.split('/').filter(Boolean)
      const last = segments.at(-1)
      if (last) return decodeURIComponent(last)
    } catch {
      /* fall back to the secret */
    }
  }
  return payment.clientSecret.split('_secret_')[0]
}

export async function confirmSimulatedPayment(payment: CreatePaymentIntentResponse): Promise<void> {
  const { data, error } = await api.confirmSimulatedPayment(getSupabase(), simulatedPaymentId(payment), {
    client_secret: payment.clientSecret,
  })
  if (error) throw new Error((error.status !== 0 && error.body?.error) || 'Payment failed.')
  if (data?.status !== 'succeeded') throw new Error('Payment was not successful.')
}

export function useConfirmSimulatedPayment() {
  return useMutation({ mutationFn: confirmSimulatedPayment })
}
