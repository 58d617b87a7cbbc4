// The orders of the creator's templates, newest first, one page at a time:
// date, template, buyer (masked by the server: j***@example.com), amount and
// status. A table on wider screens; below `sm` each order is a two-column
// block, so nothing scrolls sideways.
import { Link } from 'react-router'
import type { CreatorOrder } from '@plinth/sdk'
import { Badge } from '@/components/ui/badge'
import { cn, formatDate } from '@/lib/format'
import { formatMoney } from '../model'

const STATUS_TONE = { paid: 'success', free: 'brand', pending: 'warning', failed: 'neutral' } as const
const STATUS_LABEL: Record<string, string> = { paid: 'Paid', free: 'Free', pending: 'Pending', failed: 'Failed' }

export function StatusBadge({ status }: { status: string }) {
  const tone = STATUS_TONE[status as keyof typeof STATUS_TONE] ?? 'neutral'
  return <Badge tone={tone}>{STATUS_LABEL[status] ?? status}</Badge>
}

export function OrdersList({ orders }: { orders: CreatorOrder[] }) {
  const cell = 'px-3 py-2.5 align-middle max-sm:p-0'
  return (
    <table className="w-full text-left text-sm max-sm:block" data-testid="orders">
      <caption className="sr-only">Orders of your templates</caption>
      <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500 max-sm:sr-only">
        <tr>
          <th scope="col" className="px-3 py-2 font-semibold">Date</th>
          <th scope="col" className="px-3 py-2 font-semibold">Template</th>
          <th scope="col" className="px-3 py-2 font-semibold">Buyer</th>
          <th scope="col" className="px-3 py-2 text-right font-semibold">Amount</th>
          <th scope="col" className="px-3 py-2 text-right font-semibold">Status</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 max-sm:block">
        {orders.map((order) => (
          <tr
            key={order.id}
            data-testid="order-row"
            data-order-id={order.id}
            className="max-sm:grid max-sm:grid-cols-[minmax(0,1fr)_auto] max-sm:gap-x-3 max-sm:gap-y-1 max-sm:py-3"
          >
            <td className={cn(cell, 'whitespace-nowrap text-slate-600 max-sm:order-3 max-sm:text-xs')}>
              <time dateTime={order.paidAt ?? order.createdAt}>{formatDate(order.paidAt ?? order.createdAt)}</time>
            </td>
            <td className={cn(cell, 'max-w-[14rem] max-sm:order-1 max-sm:max-w-none')}>
              <Link to={`/template/${order.templateId}`} className="block truncate font-medium text-slate-900 hover:underline">
                {order.templateTitle}
              </Link>
            </td>
            <td className={cn(cell, 'break-all text-slate-700 max-sm:order-5 max-sm:col-span-2 max-sm:text-xs')} data-testid="order-buyer">
              {order.buyer}
            </td>
            <td className={cn(cell, 'whitespace-nowrap text-right font-medium tabular-nums text-slate-900 max-sm:order-2')} data-testid="order-amount">
              {order.status === 'free' ? formatMoney(0, order.currency) : formatMoney(order.amount, order.currency)}
            </td>
            <td className={cn(cell, 'text-right max-sm:order-4')}>
              <StatusBadge status={order.status} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
