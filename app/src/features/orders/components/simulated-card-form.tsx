// The card form of the simulated provider (a server without a Stripe key: no
// network, no charge). Only the card number goes to the server, whose test
// cards decline as Stripe's do (4000 0000 0000 0002, ...9995, ...0119; any
// other valid number pays); expiry and CVC get light format checks so that
// the checkout reads and behaves like a real card form. 'Pay & Download'
// confirms the payment through /api/simulated-payments/{id}/confirm.
import { useState, type FormEvent } from 'react'
import { FieldError, Input, Label } from '@/components/ui/field'
import { cardNumberError, cvcError, expiryError, formatCardNumber, formatExpiry } from '../card-checks'
import type { PaymentFormProps } from './payment-form'
import { PayButton } from './pay-button'

type Field = 'number' | 'expiry' | 'cvc'

export function SimulatedCardForm({ busy, onPay }: PaymentFormProps & { onPay: (cardNumber: string) => void }) {
  const [values, setValues] = useState<Record<Field, string>>({ number: '', expiry: '', cvc: '' })
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({})

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (busy) return
    const found: Partial<Record<Field, string>> = {}
    const number = cardNumberError(values.number)
    const expiry = expiryError(values.expiry)
    const cvc = cvcError(values.cvc)
    if (number) found.number = number
    if (expiry) found.expiry = expiry
    if (cvc) found.cvc = cvc
    setErrors(found)
    if (Object.keys(found).length === 0) onPay(values.number)
  }

  const field = (name: Field, label: string, props: React.InputHTMLAttributes<HTMLInputElement>, format: (v: string) => string) => (
    <div>
      <Label htmlFor={`card-${name}`}>{label}</Label>
      <Input
        id={`card-${name}`}
        inputMode="numeric"
        value={values[name]}
        disabled={busy}
        onChange={(e) => setValues((v) => ({ ...v, [name]: format(e.target.value) }))}
        aria-invalid={errors[name] ? true : undefined}
        aria-describedby={errors[name] ? `card-${name}-error` : undefined}
        {...props}
      />
      <FieldError id={`card-${name}-error`}>{errors[name]}</FieldError>
    </div>
  )

  return (
    <form onSubmit={submit} noValidate aria-label="Card payment" className="space-y-4">
      <p className="rounded-lg bg-amber-50 px-3 py-2 text-xs text-amber-900">
        Test payments: this server has no card processor, so no card is charged. Card 4242 4242 4242 4242 pays; 4000 0000
        0000 0002 is declined.
      </p>
      {field('number', 'Card number', { autoComplete: 'cc-number', placeholder: '4242 4242 4242 4242', maxLength: 23 }, formatCardNumber)}
      <div className="grid grid-cols-2 gap-4">
        {field('expiry', 'Expiry (MM/YY)', { autoComplete: 'cc-exp', placeholder: 'MM/YY', maxLength: 5 }, formatExpiry)}
        {field('cvc', 'CVC', { autoComplete: 'cc-csc', placeholder: '123', maxLength: 4 }, (v) => v.replace(/\D/g, '').slice(0, 4))}
      </div>
      <PayButton busy={busy} />
    </form>
  )
}
