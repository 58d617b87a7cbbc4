// /checkout?templateId=&buyerEmail=&buyerId=: the paid purchase.
import { CheckoutPage } from '@/features/orders/components/checkout-page'

export default function CheckoutRoute() {
  return <CheckoutPage />
}
