// A paid purchase starts here (function create-payment-intent): a pending
// order and a payment to confirm, with the session's bearer when signed in.
// It is read as a query so that one visit of the checkout makes one payment,
// StrictMode's double effects and re-renders included.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { functions, type CreatePaymentIntentRequest, type CreatePaymentIntentResponse } from '@plinth/sdk'
import { getSupabase } from '@/lib/supabase'

export interface CheckoutRequest {
  templateId: string
  buyerEmail: string
  buyerId?: string
}

export async function createPaymentIntent(request: CheckoutRequest): Promise<CreatePaymentIntentResponse> {
  const body: CreatePaymentIntentRequest = { templateId: request.templateId, buyerEmail: request.buyerEmail }
  if (request.buyerId) body.buyerId = request.buyerId
  const { data, error } = await functions.createPaymentIntent(getSupabase(), body)
  if (error) {
    // Status 0: the server was not reached.
    if (error.status === 0) throw new Error('Network error during payment initialization.')
    throw new Error(error.body?.error || 'Failed to initiate payment.')
  }
  const refused = (data as { error?: unknown } | null)?.error
  if (typeof refused === 'string' && refused) throw new Error(refused)
  if (!data?.clientSecret || !data.orderId || !data.downloadToken) {
    throw new Error('Missing payment credentials from server.')
  }
  return data
}

export const paymentIntentQueryOptions = (request: CheckoutRequest) =>
  queryOptions({
    queryKey: ['checkout', 'payment-intent', request.templateId, request.buyerEmail, request.buyerId ?? null],
    queryFn: () => createPaymentIntent(request),
    staleTime: Infinity,
    retry: false,
    refetchOnMount: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  })

export function usePaymentIntent(request: CheckoutRequest, enabled: boolean) {
  return useQuery({ ...paymentIntentQueryOptions(request), enabled })
}
