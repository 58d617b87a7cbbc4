// Checkout comes in a later issue; its parameters are checked already.
import { useSearchParams } from 'react-router'
import { Container } from '@/components/ui/layout'
import { Spinner } from '@/components/ui/feedback'

export default function CheckoutRoute() {
  const [params] = useSearchParams()
  const ok = params.get('templateId') && params.get('buyerEmail')
  return (
    <Container className="py-20">
      <div className="mx-auto max-w-lg rounded-2xl border border-slate-200 bg-white p-10 text-center">
        <h1 className="text-2xl font-bold text-slate-900">Checkout</h1>
        {ok ? (
          <Spinner label="Loading checkout..." />
        ) : (
          <p role="alert" className="mt-4 text-red-700">
            Missing required parameters: templateId and/or buyerEmail.
          </p>
        )}
      </div>
    </Container>
  )
}
