// /checkout?templateId=&buyerEmail=&buyerId=: the paid purchase, with the
// template being bought.
import { useSearchParams } from 'react-router'
import { useTemplate } from '@/features/templates/api/get-template'
import type { CheckoutRequest } from '@/features/orders/api/create-payment-intent'
import { CheckoutPage, checkoutRequestFrom, MissingCheckoutParameters } from '@/features/orders/components/checkout-page'

export default function CheckoutRoute() {
  const [params] = useSearchParams()
  const request = checkoutRequestFrom(params)
  if (!request) return <MissingCheckoutParameters />
  return <Checkout request={request} />
}

function Checkout({ request }: { request: CheckoutRequest }) {
  const template = useTemplate(request.templateId)
  return <CheckoutPage request={request} template={template} />
}
