// The creator's Sales screen (issue 44 item 8): revenue over time with its
// totals, the orders of their templates, views -> downloads conversion per
// template and the payout status from the payment provider. The range, the
// orders' page and status filter live in the query string (?range=90d&page=2
// &status=paid), so Back and shared links keep them.
import { useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { ChevronLeft, ChevronRight, Receipt } from 'lucide-react'
import { Card } from '@/components/ui/card'
import { Select } from '@/components/ui/field'
import { EmptyState, LoadError, Skeleton, Spinner } from '@/components/ui/feedback'
import { cn, formatCount } from '@/lib/format'
import { ORDERS_PAGE_SIZE, useOrders } from '../api/get-orders'
import { usePayoutStatus } from '../api/get-payout-status'
import { useSales } from '../api/get-sales'
import { RANGES, STATUSES, browserTimeZone, formatMoney, parsePage, parseRange, parseStatus, type SalesRange } from '../model'
import { OrdersList } from './orders-list'
import { PayoutStatusDetails } from './payout-status'
import { RevenueChart } from './revenue-chart'
import { TemplateSalesTable } from './template-sales'

const STATUS_LABELS: Record<string, string> = { all: 'All orders', paid: 'Paid', free: 'Free', pending: 'Pending', failed: 'Failed' }

export function SalesScreen({ userId }: { userId: string }) {
  const [params, setParams] = useSearchParams()
  const range = parseRange(params.get('range'))
  const page = parsePage(params.get('page'))
  const status = parseStatus(params.get('status'))
  const [timeZone] = useState(browserTimeZone)
  const sales = useSales(userId, range, timeZone)
  const orders = useOrders(userId, page, status)
  const payout = usePayoutStatus(userId)

  const update = (changes: Record<string, string | null>) =>
    setParams((p) => {
      const next = new URLSearchParams(p)
      for (const [key, value] of Object.entries(changes)) {
        if (value === null) next.delete(key)
        else next.set(key, value)
      }
      return next
    })
  const currency = sales.data?.currency ?? 'usd'

  return (
    <div className="space-y-6">
      <div>
        <h1 className="text-2xl font-bold tracking-tight text-slate-900 sm:text-3xl">Sales</h1>
        <p className="mt-1 text-slate-600">Your revenue, orders and payouts.</p>
      </div>

      <Card
        compact
        title="Revenue"
        description={`Paid sales per ${sales.data?.bucket ?? 'day'}, in your time zone.`}
        action={<RangePicker value={range} onChange={(r) => update({ range: r === '30d' ? null : r })} />}
      >
        {sales.isPending ? (
          <Skeleton className="h-56 w-full" />
        ) : sales.isError && !sales.data ? (
          <LoadError compact title="We couldn't load your sales" />
        ) : (
          <div className={cn('space-y-5', sales.isPlaceholderData && 'opacity-60')} aria-busy={sales.isPlaceholderData}>
            <dl className="grid grid-cols-2 gap-3 lg:grid-cols-5" data-testid="sales-totals">
              <Total label="Gross revenue" value={formatMoney(sales.data.gross, currency)} testId="total-gross" />
              <Total
                label={`Platform fee (${(sales.data.platformFeeBps / 100).toLocaleString('en-US', { maximumFractionDigits: 2 })}%)`}
                value={formatMoney(sales.data.fee, currency)}
                testId="total-fee"
              />
              <Total label="Net" value={formatMoney(sales.data.net, currency)} testId="total-net" />
              <Total label="Sales" value={formatCount(sales.data.sales)} testId="total-sales" />
              <Total label="Free downloads" value={formatCount(sales.data.freeDownloads)} testId="total-free" />
            </dl>
            <RevenueChart series={sales.data.series} bucket={sales.data.bucket} currency={currency} />
          </div>
        )}
      </Card>

      <Card
        compact
        title="Orders"
        description="Buyers' addresses are partly hidden to protect their privacy."
        action={
          <div className="flex items-center gap-2">
            <label htmlFor="order-status" className="text-sm text-slate-700">Show</label>
            <Select
              id="order-status"
              value={status}
              onChange={(e) => update({ status: e.target.value === 'all' ? null : e.target.value, page: null })}
              className="w-auto"
            >
              {STATUSES.map((s) => (
                <option key={s} value={s}>{STATUS_LABELS[s]}</option>
              ))}
            </Select>
          </div>
        }
      >
        {orders.isPending ? (
          <Spinner label="Loading orders..." />
        ) : orders.isError && !orders.data ? (
          <LoadError compact title="We couldn't load your orders" />
        ) : orders.data.total === 0 ? (
          <EmptyState
            icon={<Receipt className="h-8 w-8" aria-hidden />}
            title={status === 'all' ? 'No orders yet' : `No ${STATUS_LABELS[status].toLowerCase()} orders`}
            description="Orders of your templates show here as soon as someone buys or downloads one."
            className="py-8"
          />
        ) : (
          <div className={cn(orders.isPlaceholderData && 'opacity-60')}>
            <OrdersList orders={orders.data.orders} />
            <OrdersPager page={page} total={orders.data.total} pageSize={orders.data.pageSize ?? ORDERS_PAGE_SIZE} />
          </div>
        )}
      </Card>

      <div className="space-y-6">
        <Card compact title="Templates" description="All time: how many views turned into downloads, and what each template earned.">
          {sales.isPending ? (
            <Spinner label="Loading templates..." />
          ) : sales.isError && !sales.data ? (
            <LoadError compact title="We couldn't load your templates" />
          ) : sales.data.templates.length === 0 ? (
            <p className="text-sm text-slate-600">
              You have no published templates yet. <Link to="/upload" className="font-medium text-brand-700 hover:underline">Upload one</Link>.
            </p>
          ) : (
            <TemplateSalesTable templates={sales.data.templates} currency={currency} />
          )}
        </Card>
        <Card compact title="Payouts" description="From your payment provider.">
          {payout.isPending ? (
            <Spinner label="Asking your payment provider..." />
          ) : payout.isError ? (
            <LoadError compact title="We couldn't reach your payment provider" />
          ) : (
            <PayoutStatusDetails status={payout.data} currency={currency} />
          )}
        </Card>
      </div>
    </div>
  )
}

function Total({ label, value, testId }: { label: string; value: string; testId: string }) {
  return (
    <div className="min-w-0 rounded-lg bg-slate-50 p-3">
      <dt className="text-xs font-medium text-slate-500">{label}</dt>
      <dd className="mt-1 break-words text-lg font-semibold tabular-nums text-slate-900 sm:text-xl" data-testid={testId}>{value}</dd>
    </div>
  )
}

function RangePicker({ value, onChange }: { value: SalesRange; onChange: (range: SalesRange) => void }) {
  return (
    <div role="group" aria-label="Range" className="inline-flex rounded-lg bg-slate-100 p-1">
      {RANGES.map((r) => (
        <button
          key={r.value}
          type="button"
          aria-pressed={r.value === value}
          onClick={() => onChange(r.value)}
          className={cn(
            'rounded-md px-3 py-1.5 text-sm font-medium focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500',
            r.value === value ? 'bg-white text-slate-900 shadow-sm' : 'text-slate-700 hover:text-slate-900',
          )}
        >
          {r.label}
        </button>
      ))}
    </div>
  )
}

function OrdersPager({ page, total, pageSize }: { page: number; total: number; pageSize: number }) {
  const [params] = useSearchParams()
  const pages = Math.max(1, Math.ceil(total / pageSize))
  const from = Math.min((page - 1) * pageSize + 1, total)
  const to = Math.min(page * pageSize, total)
  const link = (n: number) => {
    const next = new URLSearchParams(params)
    if (n <= 1) next.delete('page')
    else next.set('page', String(n))
    const search = next.toString()
    return search ? `?${search}` : '?'
  }
  const cell = 'inline-flex h-9 items-center gap-1 rounded-lg border px-3 text-sm font-medium'
  return (
    <nav aria-label="Orders pages" className="mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-slate-100 pt-4">
      <p className="text-sm text-slate-600" data-testid="orders-showing">
        {page > pages ? `Page ${page} of ${pages}` : `${formatCount(from)}–${formatCount(to)} of ${formatCount(total)}`}
      </p>
      <div className="flex gap-2">
        {page > 1 ? (
          <Link to={link(Math.min(page - 1, pages))} rel="prev" className={cn(cell, 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50')}>
            <ChevronLeft className="h-4 w-4" aria-hidden /> Previous
          </Link>
        ) : (
          <span aria-disabled="true" className={cn(cell, 'border-slate-200 text-slate-400')}>
            <ChevronLeft className="h-4 w-4" aria-hidden /> Previous
          </span>
        )}
        {page < pages ? (
          <Link to={link(page + 1)} rel="next" className={cn(cell, 'border-slate-300 bg-white text-slate-800 hover:bg-slate-50')}>
            Next <ChevronRight className="h-4 w-4" aria-hidden />
          </Link>
        ) : (
          <span aria-disabled="true" className={cn(cell, 'border-slate-200 text-slate-400')}>
            Next <ChevronRight className="h-4 w-4" aria-hidden />
          </span>
        )}
      </div>
    </nav>
  )
}
