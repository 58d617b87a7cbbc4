// Checkout (spec sections 2, 4, 7): 'Loading checkout...' while the payment is
// created, then an error or the card form; paying ('Processing...'), then
// success, and the secure download page a second later, or the error text.
// The provider the server names decides the form: 'simulated' (no network:
// a local card form) or 'stripe' (Stripe Elements, loaded only then).
// The template being bought is read by the route (app/routes/checkout.tsx).
import { lazy, Suspense, useEffect, useState, type ReactNode } from 'react'
import { Link, Navigate, useNavigate } from 'react-router'
import { useQueryClient, type UseQueryResult } from '@tanstack/react-query'
import { CheckCircle2, Lock } from 'lucide-react'
import type { CreatePaymentIntentResponse } from '@plinth/sdk'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/feedback'
import { Container } from '@/components/ui/layout'
import { PAYMENT_REDIRECT_MS } from '@/config/constants'
import { isFree } from '@/lib/format'
import { useSession } from '@/lib/session'
import type { Template } from '@/lib/types'
import { paymentIntentQueryOptions, usePaymentIntent, type CheckoutRequest } from '../api/create-payment-intent'
import { useConfirmSimulatedPayment } from '../api/confirm-simulated-payment'
import { formatAmount, secureDownloadPath } from '../format'
import { SimulatedCardForm } from './simulated-card-form'
import type { PaymentFormProps } from './payment-form'

// Stripe.js and its React bindings load only when the server uses Stripe.
const StripeCardForm = lazy(() => import('./stripe-card-form'))

function Shell({ children }: { children: ReactNode }) {
  return (
    <Container className="py-10 sm:py-16">
      <div className="mx-auto max-w-lg rounded-2xl border border-slate-200 bg-white p-6 shadow-sm sm:p-8">
        <h1 className="text-2xl font-bold text-slate-900">Checkout</h1>
        {children}
      </div>
    </Container>
  )
}

function ErrorText({ children }: { children: ReactNode }) {
  return (
    <p role="alert" className="mt-4 rounded-lg border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-800">
      {children}
    </p>
  )
}

/** The purchase of ?templateId=&buyerEmail=&buyerId=, or null when templateId or buyerEmail is missing. */
export function checkoutRequestFrom(params: URLSearchParams): CheckoutRequest | null {
  const templateId = params.get('templateId')?.trim() ?? ''
  const buyerEmail = params.get('buyerEmail')?.trim() ?? ''
  const buyerId = params.get('buyerId')?.trim() || undefined
  if (!templateId || !buyerEmail) return null
  return { templateId, buyerEmail, buyerId }
}

export function MissingCheckoutParameters() {
  return (
    <Shell>
      <ErrorText>Missing required parameters: templateId and/or buyerEmail.</ErrorText>
      <Link to="/discover" className="mt-6 inline-block text-sm font-medium text-brand-700 underline">
        Back to Marketplace
      </Link>
    </Shell>
  )
}

/** The read of the template being bought (null: no such published template). */
export type CheckoutTemplate = Pick<UseQueryResult<Template | null>, 'data' | 'isPending' | 'isError' | 'refetch'>

type Stage = { kind: 'ready' } | { kind: 'paying' } | { kind: 'failed'; message: string } | { kind: 'paid' }

export function CheckoutPage({ request, template }: { request: CheckoutRequest; template: CheckoutTemplate }) {
  // The session decides the bearer the function gets: wait for it.
  const { loading } = useSession()
  // A free template has nothing to pay: its page offers the free download
  // (no payment is asked for, so no 'use create-free-order' refusal shows).
  const free = !!template.data && isFree(template.data.price)
  const intent = usePaymentIntent(request, !loading && !template.isPending && !free)

  if (free) return <Navigate to={`/template/${encodeURIComponent(request.templateId)}`} replace />
  if (loading || template.isPending || intent.isPending) {
    return (
      <Shell>
        <Spinner label="Loading checkout..." />
      </Shell>
    )
  }
  if (intent.isError) {
    return (
      <Shell>
        <ErrorText>{intent.error.message}</ErrorText>
        <div className="mt-6 flex flex-wrap gap-3">
          {/* The template's own read may have failed with it (the server out of reach): both again. */}
          <Button
            variant="outline"
            onClick={() => {
              void intent.refetch()
              if (template.isError) void template.refetch()
            }}
          >
            Try Again
          </Button>
          <Link to={`/template/${encodeURIComponent(request.templateId)}`} className="self-center text-sm font-medium text-brand-700 underline">
            Back to template
          </Link>
        </div>
      </Shell>
    )
  }
  return (
    <Shell>
      <dl className="mt-5 space-y-2 rounded-xl bg-slate-50 p-4 text-sm">
        {template.data && (
          <div className="flex justify-between gap-4">
            <dt className="text-slate-600">Template</dt>
            <dd className="text-right font-medium text-slate-900">{template.data.title}</dd>
          </div>
        )}
        {/* A long e-mail moves whole to its own line; it breaks only where it is wider than the card (issue 15, item 18). */}
        <div className="flex flex-wrap justify-between gap-x-4">
          <dt className="shrink-0 text-slate-600">Receipt to</dt>
          <dd className="ml-auto min-w-0 text-right text-slate-900 [overflow-wrap:anywhere]" data-testid="checkout-email">
            {request.buyerEmail}
          </dd>
        </div>
        <div className="flex justify-between gap-4 border-t border-slate-200 pt-2">
          <dt className="font-semibold text-slate-900">Total</dt>
          <dd className="font-semibold text-slate-900" data-testid="checkout-total">
            {formatAmount(intent.data.amount, intent.data.currency)}
          </dd>
        </div>
      </dl>
      <Payment request={request} payment={intent.data} />
    </Shell>
  )
}

function Payment({ request, payment }: { request: CheckoutRequest; payment: CreatePaymentIntentResponse }) {
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const [stage, setStage] = useState<Stage>({ kind: 'ready' })
  const confirm = useConfirmSimulatedPayment()

  useEffect(() => {
    if (stage.kind !== 'paid') return
    const timer = setTimeout(() => {
      // A later visit of this checkout starts a new payment.
      queryClient.removeQueries({ queryKey: paymentIntentQueryOptions(request).queryKey })
      navigate(secureDownloadPath(payment.orderId, payment.downloadToken), { replace: true })
    }, PAYMENT_REDIRECT_MS)
    return () => clearTimeout(timer)
  }, [stage.kind, navigate, queryClient, request, payment.orderId, payment.downloadToken])

  if (stage.kind === 'paid') {
    return (
      <div role="status" className="mt-6 flex flex-col items-center gap-2 text-center">
        <CheckCircle2 className="h-10 w-10 text-emerald-600" aria-hidden />
        <p className="text-lg font-semibold text-slate-900">Payment successful!</p>
        <p className="text-sm text-slate-600">Redirecting to your download...</p>
      </div>
    )
  }

  const props: PaymentFormProps = {
    payment,
    busy: stage.kind === 'paying',
    onPaying: () => setStage({ kind: 'paying' }),
    onPaid: () => setStage({ kind: 'paid' }),
    onFailed: (message) => setStage({ kind: 'failed', message }),
  }
  // The texts (spec section 8) come from confirmSimulatedPayment: a declined
  // card shows the provider's message; the form stays, for another card.
  const simulatedPay = (cardNumber: string) => {
    props.onPaying()
    confirm.mutate(
      { payment, cardNumber },
      {
        onSuccess: props.onPaid,
        onError: (error) => props.onFailed(error.message || 'Payment failed.'),
      },
    )
  }

  return (
    <div className="mt-6">
      {payment.provider === 'simulated' ? (
        <SimulatedCardForm {...props} onPay={simulatedPay} />
      ) : payment.provider === 'stripe' ? (
        <Suspense fallback={<Spinner label="Loading payment form..." />}>
          <StripeCardForm {...props} />
        </Suspense>
      ) : (
        <ErrorText>Failed to initiate payment.</ErrorText>
      )}
      {stage.kind === 'failed' && <ErrorText>{stage.message}</ErrorText>}
      <p className="mt-4 flex items-center justify-center gap-1.5 text-xs text-slate-500">
        <Lock className="h-3.5 w-3.5" aria-hidden /> Your download link opens as soon as the payment is confirmed.
      </p>
    </div>
  )
}
