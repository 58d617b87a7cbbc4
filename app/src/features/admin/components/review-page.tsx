// One submission under review (/dashboard/admin/template/{id}): everything the
// creator sent, and the decision (spec section 2, Dashboard → Admin review).
import { useEffect, useState } from 'react'
import { Link, useNavigate, useParams, useSearchParams } from 'react-router'
import { useQuery } from '@tanstack/react-query'
import { ArrowLeft, Check, Download, ImageIcon, X } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button } from '@/components/ui/button'
import { EmptyState, LoadError, Spinner } from '@/components/ui/feedback'
import { Select } from '@/components/ui/field'
import { Markdown } from '@/components/ui/markdown'
import { formatDate, formatPrice } from '@/lib/format'
import { logQuiet } from '@/lib/log'
import { publicImageUrl } from '@/lib/storage'
import { toastError, toastSuccess } from '@/lib/toast'
import { personName } from '@/lib/types'
import { ADMIN_PATH, ADMIN_REDIRECT_SCROLL_MS, TEMPLATES_BUCKET } from '@/config/constants'
import { safeRedirect } from '@/lib/nav-memory'
import { safeLink } from '@/lib/safe-link'
import { reviewTemplateQueryOptions, type ReviewTemplate } from '../api/get-pending-review'
import { approvalErrorText, hasDownload, NO_DOWNLOAD_TEXT, useReviewDecision } from '../api/review-decisions'
import { templateFileLink } from '../api/template-file-link'
import { RejectDialog } from './reject-dialog'

/** Where Back to Dashboard goes: `returnTo` when it is a path of this site, else the admin panel. */
export function safeReturnTo(value: string | null): string {
  return safeRedirect(value, ADMIN_PATH)
}

const LABELS: Record<ReviewTemplate['status'], string> = {
  'Pending Approval': 'Pending Approval',
  Active: 'Approved',
  Rejected: 'Rejected',
}

function StatusBadge({ status }: { status: ReviewTemplate['status'] }) {
  const tone = status === 'Active' ? 'success' : status === 'Rejected' ? 'dark' : 'warning'
  return <Badge tone={tone}>{LABELS[status]}</Badge>
}

function FileLink({ value, link: webLink }: { value: string | null; link: string | null }) {
  const link = useQuery({ queryKey: ['admin', 'file-link', value], queryFn: () => templateFileLink(value), staleTime: 5 * 60_000 })
  if (!value && webLink) {
    const href = safeLink(webLink)
    return (
      <p className="text-sm text-slate-700">
        Delivered as a link:{' '}
        {href ? (
          <a href={href} target="_blank" rel="noopener noreferrer nofollow" className="break-all font-medium text-brand-700 hover:underline">{webLink}</a>
        ) : (
          <span className="break-all">{webLink}</span>
        )}
      </p>
    )
  }
  if (!value) return <p className="text-sm text-slate-600">No template file was uploaded.</p>
  if (link.error) return <p className="text-sm text-red-700">The template file could not be opened.</p>
  if (!link.data) return <p className="text-sm text-slate-600">Preparing the file link...</p>
  return (
    <a href={link.data} target="_blank" rel="noreferrer" className="inline-flex items-center gap-2 font-medium text-brand-700 hover:underline">
      <Download className="h-4 w-4" aria-hidden /> Download template file
    </a>
  )
}

export function ReviewPage() {
  const { templateId = '' } = useParams()
  const [params] = useSearchParams()
  const returnTo = safeReturnTo(params.get('returnTo'))
  const navigate = useNavigate()
  const template = useQuery(reviewTemplateQueryOptions(templateId))
  const decide = useReviewDecision()
  const [rejecting, setRejecting] = useState(false)
  // The server's words when it refused an approval, shown beside the button.
  const [refusal, setRefusal] = useState<string | null>(null)

  useEffect(() => {
    if (template.error) {
      logQuiet('reading a submission', template.error)
      toastError('Failed to load template')
    }
  }, [template.error])

  const backToList = () => {
    navigate(returnTo)
    setTimeout(() => window.scrollTo({ top: 0 }), ADMIN_REDIRECT_SCROLL_MS)
  }

  const approve = () => {
    setRefusal(null)
    decide.mutate(
      { kind: 'approve', id: templateId },
      {
        onSuccess: () => {
          toastSuccess('Template approved and published successfully')
          backToList()
        },
        onError: (error) => {
          logQuiet('approving a template', error)
          const text = approvalErrorText(error)
          toastError(text)
          // The server's own reason stays beside the button too.
          if ((error as { code?: unknown } | null)?.code === 'P0001') setRefusal(text)
        },
      },
    )
  }

  const reject = (reason: string) =>
    decide.mutate(
      { kind: 'reject', id: templateId, reason },
      {
        onSuccess: () => {
          setRejecting(false)
          toastSuccess('Template rejected successfully')
          backToList()
        },
        onError: (error) => {
          logQuiet('rejecting a template', error)
          toastError('Failed to update template status')
        },
      },
    )

  const back = (
    <Link to={returnTo} className="inline-flex items-center gap-2 text-sm font-medium text-slate-700 hover:text-slate-900">
      <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Dashboard
    </Link>
  )

  if (template.isPending) return <Spinner label="Loading template..." />
  const t = template.data
  // Not read (the server out of reach) is not "not found" (issue 24).
  if (template.isError && !t)
    return (
      <div className="space-y-6">
        {back}
        <LoadError />
      </div>
    )
  if (!t)
    return (
      <div className="space-y-6">
        {back}
        <EmptyState title="Template not found" titleAs="h1" />
      </div>
    )

  const downloadable = hasDownload(t)
  const image = publicImageUrl(t.preview_image_url, TEMPLATES_BUCKET)
  const extra = (t.preview_images ?? []).map((p) => publicImageUrl(p, TEMPLATES_BUCKET)).filter((p): p is string => !!p)
  return (
    <article aria-labelledby="review-title" className="space-y-6">
      {back}
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-wrap items-center gap-3">
          <StatusBadge status={t.status} />
          <span className="text-sm text-slate-600">Submitted {formatDate(t.created_at)}</span>
        </div>
        <div className="w-52">
          <Select
            aria-label="Review status"
            value={LABELS[t.status]}
            disabled={decide.isPending}
            onChange={(e) => {
              // As specified, only the value 'Active' approves from here, and
              // this list offers 'Approved' instead: choosing it does nothing
              // (the Approve Template button approves). Rejected asks for the
              // reason, as the Reject Template button does.
              if (e.target.value === 'Active') {
                if (downloadable) approve()
              }
              else if (e.target.value === 'Rejected' && t.status !== 'Rejected') setRejecting(true)
            }}
          >
            <option value="Pending Approval">Pending Approval</option>
            <option value="Approved">Approved</option>
            <option value="Rejected">Rejected</option>
          </Select>
        </div>
      </div>

      <div className="grid gap-6 lg:grid-cols-3">
        <div className="space-y-6 lg:col-span-2">
          <div className="overflow-hidden rounded-2xl border border-slate-200 bg-white">
            <div className="aspect-[16/9] bg-slate-100">
              {image ? (
                <img src={image} alt={`Preview of ${t.title}`} width={1280} height={720} className="h-full w-full object-cover" />
              ) : (
                <div className="flex h-full items-center justify-center text-slate-400"><ImageIcon className="h-10 w-10" aria-hidden /></div>
              )}
            </div>
            {extra.length > 0 && (
              <ul className="grid grid-cols-3 gap-2 p-3 sm:grid-cols-6" aria-label="Additional previews">
                {extra.map((src) => (
                  <li key={src}><img src={src} alt="" width={160} height={160} loading="lazy" decoding="async" className="aspect-square w-full rounded-md object-cover" /></li>
                ))}
              </ul>
            )}
          </div>
          <div className="rounded-2xl border border-slate-200 bg-white p-6">
            <h1 id="review-title" className="text-2xl font-bold text-slate-900">{t.title}</h1>
            {t.description && <p className="mt-2 text-slate-700">{t.description}</p>}
            {t.about_template && (
              <section aria-label="About this template" className="mt-6">
                <Markdown>{t.about_template}</Markdown>
              </section>
            )}
            {(t.tags ?? []).length > 0 && (
              <ul className="mt-6 flex flex-wrap gap-2" aria-label="Tags">
                {(t.tags ?? []).map((tag) => (
                  <li key={tag}><Badge>{tag}</Badge></li>
                ))}
              </ul>
            )}
            <div className="mt-6 border-t border-slate-200 pt-4">
              <FileLink value={t.template_file_url} link={t.template_url} />
            </div>
          </div>
        </div>

        <aside className="space-y-4">
          <div className="space-y-3 rounded-2xl border border-slate-200 bg-white p-6">
            <Button
              className="w-full"
              onClick={approve}
              disabled={decide.isPending || t.status === 'Active' || !downloadable}
              aria-describedby={!downloadable ? 'no-download' : refusal ? 'approval-refused' : undefined}
            >
              <Check className="h-4 w-4" aria-hidden /> Approve Template
            </Button>
            {!downloadable && (
              <p id="no-download" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">
                {NO_DOWNLOAD_TEXT}
              </p>
            )}
            {downloadable && refusal && (
              <p id="approval-refused" role="alert" className="rounded-lg bg-red-50 p-3 text-sm text-red-800 ring-1 ring-red-200">
                {refusal}
              </p>
            )}
            <Button className="w-full" variant="outline" onClick={() => setRejecting(true)} disabled={decide.isPending || t.status === 'Rejected'}>
              <X className="h-4 w-4" aria-hidden /> Reject Template
            </Button>
            {t.rejection_comment && (
              <p className="text-sm text-slate-600">Rejection reason: {t.rejection_comment}</p>
            )}
          </div>
          <section aria-labelledby="review-details" className="rounded-2xl border border-slate-200 bg-white p-6 text-sm">
            <h2 id="review-details" className="text-base font-semibold text-slate-900">Details</h2>
            <dl className="mt-3 space-y-3">
            <div className="flex justify-between gap-3">
              <dt className="text-slate-600">Creator</dt>
              <dd><Link to={`/profile/${t.creator_id}`} className="font-medium text-brand-700 hover:underline">{personName(t.creator)}</Link></dd>
            </div>
            <div className="flex justify-between gap-3">
              <dt className="text-slate-600">Price</dt>
              <dd className="font-medium text-slate-900">{formatPrice(t.price)}</dd>
            </div>
            <div className="flex justify-between gap-3">
              <dt className="text-slate-600">Category</dt>
              <dd className="font-medium text-slate-900">{t.category?.name ?? '—'}</dd>
            </div>
            <div className="flex justify-between gap-3">
              <dt className="text-slate-600">Submitted</dt>
              <dd className="font-medium text-slate-900">{formatDate(t.created_at)}</dd>
            </div>
            </dl>
          </section>
        </aside>
      </div>

      <RejectDialog title={t.title} open={rejecting} busy={decide.isPending} onOpenChange={setRejecting} onReject={reject} />
    </article>
  )
}
