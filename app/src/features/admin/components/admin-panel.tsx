// The admin panel (/dashboard/admin): counters and the table of submissions
// waiting for review, kept live while open (spec section 2, Dashboard → Admin).
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { CalendarClock, ClipboardList, ImageIcon, Inbox, ListChecks } from 'lucide-react'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { Select } from '@/components/ui/field'
import { formatDate } from '@/lib/format'
import { publicImageUrl } from '@/lib/storage'
import { personName } from '@/lib/types'
import { logQuiet } from '@/lib/log'
import { toastError, toastSuccess } from '@/lib/toast'
import { ADMIN_PATH, PENDING_THIS_WEEK_DAYS, TEMPLATES_BUCKET } from '@/config/constants'
import { pendingReviewQueryOptions, type ReviewTemplate } from '../api/get-pending-review'
import { approvalErrorText, hasDownload, NO_DOWNLOAD_TEXT, useReviewDecision } from '../api/review-decisions'
import { useLiveReviewQueue } from '../hooks/use-live-review-queue'
import { RejectDialog } from './reject-dialog'

/** Submissions of the last `days` days, counted at `now`. */
export function submittedWithin(rows: Pick<ReviewTemplate, 'created_at'>[], days: number, now = Date.now()): number {
  const since = now - days * 24 * 60 * 60 * 1000
  return rows.filter((r) => new Date(r.created_at).getTime() >= since).length
}

function Counter({ label, value, icon }: { label: string; value: number; icon: React.ReactNode }) {
  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-5">
      <div className="flex items-center justify-between text-sm font-medium text-slate-600">
        {label}
        <span className="text-slate-400">{icon}</span>
      </div>
      <p className="mt-2 text-3xl font-bold text-slate-900" data-testid={`counter-${label}`}>
        {value}
      </p>
    </div>
  )
}

/** A cell's name on a phone, where the table's head is hidden (read there: the column headers are not). */
function CellLabel({ children }: { children: string }) {
  return <span className="mb-0.5 block text-xs font-medium uppercase tracking-wide text-slate-500 md:hidden">{children}</span>
}

function StatusSelect({ template, disabled, onApprove, onReject }: { template: ReviewTemplate; disabled: boolean; onApprove: () => void; onReject: () => void }) {
  // Nothing to download: Approve is offered disabled, with the reason under the list (issue 44, item 3).
  const downloadable = hasDownload(template)
  const why = `no-download-${template.id}`
  return (
    <div className="w-full md:w-48">
      <Select
        aria-label={`Status of ${template.title}`}
        aria-describedby={downloadable ? undefined : why}
        value="Pending Approval"
        disabled={disabled}
        onChange={(e) => {
          // Only Approve (value Active) and Reject act; Pending Approval is where it is.
          if (e.target.value === 'Active') onApprove()
          else if (e.target.value === 'Rejected') onReject()
        }}
      >
        <option value="Pending Approval">Pending Approval</option>
        <option value="Active" disabled={!downloadable}>
          {downloadable ? 'Approve' : 'Approve (no file or link)'}
        </option>
        <option value="Rejected">Reject</option>
      </Select>
      {!downloadable && (
        <p id={why} className="mt-1 text-xs text-amber-800" data-testid="no-download">
          {NO_DOWNLOAD_TEXT}
        </p>
      )}
    </div>
  )
}

export function AdminPanel() {
  const queue = useQuery(pendingReviewQueryOptions())
  useLiveReviewQueue()
  const decide = useReviewDecision()
  const [rejecting, setRejecting] = useState<ReviewTemplate | null>(null)

  useEffect(() => {
    if (queue.error) {
      logQuiet('reading the review queue', queue.error)
      toastError('Failed to load pending templates')
    }
  }, [queue.error])

  const approve = (t: ReviewTemplate) =>
    decide.mutate(
      { kind: 'approve', id: t.id },
      {
        onSuccess: () => toastSuccess('Template approved and published successfully'),
        onError: (error) => {
          logQuiet('approving a template', error)
          toastError(approvalErrorText(error))
        },
      },
    )

  const reject = (t: ReviewTemplate, reason: string) =>
    decide.mutate(
      { kind: 'reject', id: t.id, reason },
      {
        onSuccess: () => {
          setRejecting(null)
          toastSuccess('Template rejected successfully')
        },
        onError: (error) => {
          logQuiet('rejecting a template', error)
          toastError('Failed to update template status')
        },
      },
    )

  const rows = queue.data ?? []
  const unread = queue.isError && !queue.data
  return (
    <section aria-labelledby="admin-heading" className="space-y-6">
      <header>
        <h1 id="admin-heading" className="text-2xl font-bold tracking-tight text-slate-900">
          Admin Panel
        </h1>
        <p className="mt-1 text-slate-600">Review submitted templates and approve or reject them.</p>
      </header>

      {/* Unread counts are not zeros: no counters then, only the retry state below. */}
      {!unread && (
        <div className="grid gap-4 sm:grid-cols-3">
          <Counter label="Pending Review" value={rows.length} icon={<ClipboardList className="h-5 w-5" aria-hidden />} />
          <Counter label="Total Submissions" value={rows.length} icon={<ListChecks className="h-5 w-5" aria-hidden />} />
          <Counter label="This Week" value={submittedWithin(rows, PENDING_THIS_WEEK_DAYS)} icon={<CalendarClock className="h-5 w-5" aria-hidden />} />
        </div>
      )}

      {queue.isPending ? (
        <Spinner label="Loading pending templates..." />
      ) : unread ? (
        <LoadError title="We couldn't load the templates waiting for review" />
      ) : rows.length === 0 ? (
        <EmptyState icon={<Inbox className="h-10 w-10" aria-hidden />} title="No templates pending review" description="All caught up!" />
      ) : (
        // Below 768 px the table is laid out as one card per submission (its
        // rows and cells become blocks, each cell named by a small label), so
        // Status and Review sit in plain view instead of at the far end of an
        // inner scroll area (issue 44, low). From 768 px it is a table. The
        // card is positioned (`relative`) so that it clips the table's
        // absolutely positioned screen-reader texts (issue 15, item 2).
        <div className="relative overflow-hidden rounded-2xl border border-slate-200 bg-white md:overflow-x-auto">
          <table className="block w-full text-left text-sm md:table md:min-w-[48rem]">
            <caption className="sr-only">Templates pending review</caption>
            <thead className="hidden border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500 md:table-header-group">
              <tr>
                <th scope="col" className="px-4 py-3">Template</th>
                <th scope="col" className="px-4 py-3">Creator</th>
                <th scope="col" className="px-4 py-3">Category</th>
                <th scope="col" className="px-4 py-3">Submitted</th>
                <th scope="col" className="px-4 py-3">Status</th>
                <th scope="col" className="px-4 py-3"><span className="sr-only">Review</span></th>
              </tr>
            </thead>
            <tbody className="block divide-y divide-slate-100 md:table-row-group">
              {rows.map((t) => {
                const image = publicImageUrl(t.preview_image_url, TEMPLATES_BUCKET)
                return (
                  <tr key={t.id} data-testid="pending-row" className="grid grid-cols-2 gap-x-4 gap-y-2 p-4 md:table-row md:p-0">
                    <td className="col-span-2 md:table-cell md:px-4 md:py-3">
                      <div className="flex items-center gap-3">
                        <div className="h-12 w-16 shrink-0 overflow-hidden rounded-md bg-slate-100">
                          {image ? (
                            <img src={image} alt="" width={64} height={48} loading="lazy" decoding="async" className="h-full w-full object-cover" />
                          ) : (
                            <ImageIcon className="m-auto mt-3 h-6 w-6 text-slate-400" aria-hidden />
                          )}
                        </div>
                        <div className="min-w-0">
                          <p className="font-semibold text-slate-900">{t.title}</p>
                          <p className="line-clamp-1 max-w-xs text-slate-600">{t.description}</p>
                        </div>
                      </div>
                    </td>
                    <td className="min-w-0 md:table-cell md:px-4 md:py-3">
                      <CellLabel>Creator</CellLabel>
                      <Link to={`/profile/${t.creator_id}`} className="break-words font-medium text-brand-700 hover:underline">
                        {personName(t.creator)}
                      </Link>
                    </td>
                    <td className="text-slate-700 md:table-cell md:px-4 md:py-3">
                      <CellLabel>Category</CellLabel>
                      {t.category?.name ?? '—'}
                    </td>
                    <td className="col-span-2 text-slate-700 md:table-cell md:px-4 md:py-3">
                      <CellLabel>Submitted</CellLabel>
                      {formatDate(t.created_at)}
                    </td>
                    <td className="col-span-2 md:table-cell md:px-4 md:py-3">
                      <CellLabel>Status</CellLabel>
                      <StatusSelect template={t} disabled={decide.isPending} onApprove={() => approve(t)} onReject={() => setRejecting(t)} />
                    </td>
                    <td className="col-span-2 md:table-cell md:px-4 md:py-3 md:text-right">
                      <Link
                        to={`${ADMIN_PATH}/template/${t.id}?returnTo=${encodeURIComponent(ADMIN_PATH)}`}
                        className="inline-flex min-h-10 items-center rounded-md font-medium text-brand-700 hover:underline max-md:w-full max-md:justify-center max-md:border max-md:border-brand-200 max-md:bg-brand-50"
                        aria-label={`Review ${t.title}`}
                      >
                        Review
                      </Link>
                    </td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        </div>
      )}

      <RejectDialog
        title={rejecting?.title ?? ''}
        open={!!rejecting}
        busy={decide.isPending}
        onOpenChange={(open) => !open && setRejecting(null)}
        onReject={(reason) => rejecting && reject(rejecting, reason)}
      />
    </section>
  )
}
