// Confirms a payment of the simulated provider (a server without a Stripe
// key) through /api/simulated-payments/{id}/confirm with the typed card
// number; the server then marks the order paid, as Stripe's webhook would,
// or declines Stripe's declining test cards (README, 'Test cards').
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

/** A payment to confirm and the card number the buyer typed (sent, never kept). */
export interface SimulatedConfirmation {
  payment: CreatePaymentIntentResponse
  cardNumber: string
}

// The spec's checkout texts for a confirmation, as the Stripe form maps
// Stripe.js's result (stripe-card-form.tsx):
// - a declined card (402, Stripe's card error: the simulated provider's test
//   cards): the provider's message ('Your card was declined.', ...), else
//   'Payment failed.';
// - another refusal: the server's text, else 'Payment failed.';
// - no answer at all (network): 'Payment failed.';
// - an answer whose status is not 'succeeded': 'Payment was not successful.'.
export async function confirmSimulatedPayment({ payment, cardNumber }: SimulatedConfirmation): Promise<void> {
  const { data, error } = await api.confirmSimulatedPayment(getSupabase(), simulatedPaymentId(payment), {
    client_secret: payment.clientSecret,
    card_number: cardNumber.replace(/\D/g, ''),
  })
  if (error) {
    if (error.cardError) throw new Error(error.cardError.message || 'Payment failed.')
    throw new Error((error.status !== 0 && error.body?.error) || 'Payment failed.')
  }
  if (data?.status !== 'succeeded') throw new Error('Payment was not successful.')
}

export function useConfirmSimulatedPayment() {
  return useMutation({ mutationFn: confirmSimulatedPayment })
}
