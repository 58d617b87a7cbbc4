// The card form of Stripe: Stripe.js (loaded here, lazily, with the
// publishable key of /_/app-config.json) and its Payment Element on the
// payment's client secret. Confirmation stays on the page unless the card
// needs a redirect (3-D Secure and the like), which comes back to the secure
// download page of the order.
import { useState, type FormEvent } from 'react'
import { useQuery } from '@tanstack/react-query'
import { loadStripe } from '@stripe/stripe-js/pure'
import type { Stripe } from '@stripe/stripe-js'
import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { logQuiet } from '@/lib/log'
import { getStripePublishableKey } from '../api/get-stripe-key'
import { secureDownloadPath } from '../format'
import type { PaymentFormProps } from './payment-form'
import { PayButton } from './pay-button'

const NOT_READY = 'Stripe is not ready. Please try again.'

async function stripeInstance(): Promise<Stripe> {
  const key = await getStripePublishableKey()
  if (!key) throw new Error(NOT_READY)
  try {
    const stripe = await loadStripe(key)
    if (!stripe) throw new Error('loadStripe answered null')
    return stripe
  } catch (error) {
    logQuiet('loading Stripe.js', error)
    throw new Error(NOT_READY)
  }
}

export default function StripeCardForm(props: PaymentFormProps) {
  const stripe = useQuery({ queryKey: ['stripe', 'instance'], queryFn: stripeInstance, retry: false, staleTime: Infinity })
  if (stripe.isPending) return <Spinner label="Loading payment form..." />
  if (stripe.isError) {
    return (
      <div className="space-y-3">
        <p role="alert" className="rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
          {NOT_READY}
        </p>
        <Button variant="outline" onClick={() => void stripe.refetch()}>
          Try Again
        </Button>
      </div>
    )
  }
  return (
    <Elements stripe={stripe.data} options={{ clientSecret: props.payment.clientSecret }}>
      <StripeForm {...props} />
    </Elements>
  )
}

function StripeForm({ payment, busy, onPaying, onPaid, onFailed }: PaymentFormProps) {
  const stripe = useStripe()
  const elements = useElements()
  const [complete, setComplete] = useState(false)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (busy) return
    if (!stripe || !elements) {
      onFailed(NOT_READY)
      return
    }
    onPaying()
    try {
      const result = await stripe.confirmPayment({
        elements,
        confirmParams: {
          return_url: window.location.origin + secureDownloadPath(payment.orderId, payment.downloadToken),
        },
        redirect: 'if_required',
      })
      if (result.error) onFailed(result.error.message || 'Payment failed.')
      else if (result.paymentIntent?.status === 'succeeded') onPaid()
      else onFailed('Payment was not successful.')
    } catch (error) {
      logQuiet('confirming a Stripe payment', error)
      onFailed('Payment failed.')
    }
  }

  return (
    <form onSubmit={(e) => void submit(e)} aria-label="Card payment" className="space-y-4">
      <PaymentElement onChange={(event) => setComplete(event.complete)} />
      <PayButton busy={busy} disabled={!stripe || !complete} />
    </form>
  )
}
