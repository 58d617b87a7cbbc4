// Per template, all time: views, downloads, the views -> downloads conversion,
// sales and revenue. Below `sm` each template is a block of figures.
import { Link } from 'react-router'
import type { TemplateSales } from '@plinth/sdk'
import { formatCount } from '@/lib/format'
import { formatConversion, formatMoney } from '../model'

export function TemplateSalesTable({ templates, currency }: { templates: TemplateSales[]; currency: string }) {
  const head = 'px-3 py-2 text-right font-semibold'
  const num = 'px-3 py-2.5 text-right tabular-nums max-sm:p-0 max-sm:text-left'
  return (
    <table className="w-full text-left text-sm max-sm:block" data-testid="template-sales">
      <caption className="sr-only">Views, downloads, conversion, sales and revenue per template</caption>
      <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500 max-sm:sr-only">
        <tr>
          <th scope="col" className="px-3 py-2 font-semibold">Template</th>
          <th scope="col" className={head}>Views</th>
          <th scope="col" className={head}>Downloads</th>
          <th scope="col" className={head}>Conversion</th>
          <th scope="col" className={head}>Sales</th>
          <th scope="col" className={head}>Revenue</th>
        </tr>
      </thead>
      <tbody className="divide-y divide-slate-100 max-sm:block">
        {templates.map((t) => (
          <tr
            key={t.templateId}
            data-testid="template-sales-row"
            data-template-id={t.templateId}
            className="max-sm:grid max-sm:grid-cols-3 max-sm:gap-x-3 max-sm:gap-y-1 max-sm:py-3"
          >
            <th scope="row" className="max-w-[16rem] px-3 py-2.5 text-left font-medium max-sm:col-span-3 max-sm:max-w-none max-sm:p-0">
              <Link to={`/template/${t.templateId}`} className="block truncate text-slate-900 hover:underline">{t.title}</Link>
            </th>
            <Figure label="Views" className={num} testId="views">{formatCount(t.totalViews)}</Figure>
            <Figure label="Downloads" className={num} testId="downloads">{formatCount(t.downloadsCount)}</Figure>
            <Figure label="Conversion" className={num} testId="conversion">{formatConversion(t.totalViews, t.downloadsCount)}</Figure>
            <Figure label="Sales" className={num} testId="sales">{formatCount(t.sales)}</Figure>
            <Figure label="Revenue" className={num} testId="revenue">{formatMoney(t.gross, currency)}</Figure>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

/** A cell whose label shows above the value on phones (the header row is hidden there). */
function Figure({ label, className, testId, children }: { label: string; className: string; testId: string; children: React.ReactNode }) {
  return (
    <td className={className} data-testid={`figure-${testId}`}>
      <span className="hidden text-xs text-slate-500 max-sm:block" aria-hidden>{label}</span>
      {children}
    </td>
  )
}
