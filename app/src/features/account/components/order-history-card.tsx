// Order History: text only (the spec does not show its content or data).
import { Receipt } from 'lucide-react'
import { Card } from '@/components/ui/card'

export function OrderHistoryCard() {
  return (
    <Card
      title={<><Receipt className="h-5 w-5 text-brand-700" aria-hidden /> Order History</>}
      description="Your purchases and sales will be listed here. Download links of your purchases are also in the e-mails you receive after each order."
    />
  )
}
