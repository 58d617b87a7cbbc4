import type { CreatePaymentIntentResponse } from '@plinth/sdk'

/** What the checkout hands a card form, whichever the provider. */
export interface PaymentFormProps {
  payment: CreatePaymentIntentResponse
  /** Paying: the button reads 'Processing...' and the form is locked. */
  busy: boolean
  onPaying: () => void
  onPaid: () => void
  onFailed: (message: string) => void
}
