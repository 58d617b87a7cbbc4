import { useId } from 'react'
import { Link } from 'react-router'
import { CheckCircle2, Clock, ExternalLink, FileEdit, ImageIcon, Trash2, XCircle } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { Button, ButtonLink } from '@/components/ui/button'
import { formatDate, formatPrice } from '@/lib/format'
import { CARD_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { cardTags } from '@/lib/templates/card-tags'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { canDelete, editLink, KIND_LABEL, type MyTemplate, type TemplateKind } from '../model'

const BADGES: Record<TemplateKind, { tone: 'neutral' | 'warning' | 'success'; className?: string; icon: typeof Clock }> = {
  draft: { tone: 'neutral', icon: FileEdit },
  pending: { tone: 'warning', icon: Clock },
  published: { tone: 'success', icon: CheckCircle2 },
  rejected: { tone: 'neutral', className: 'bg-red-50 text-red-800 ring-red-200', icon: XCircle },
}

const DATE_PREFIX: Record<TemplateKind, string> = {
  draft: 'Last edited',
  pending: 'Submitted',
  published: 'Updated',
  rejected: 'Rejected',
}

export function MyTemplateCard({
  template: t,
  onDelete,
  deleting,
}: {
  template: MyTemplate
  onDelete: (t: MyTemplate) => void
  deleting: boolean
}) {
  const titleId = useId()
  const badge = BADGES[t.kind]
  const BadgeIcon = badge.icon
  const edit = editLink(t)
  const image = renditionUrl(t.preview_image_url, TEMPLATES_BUCKET, CARD_RENDITION)
  const { shown, more } = cardTags(t.tags)
  return (
    <article aria-labelledby={titleId} className="flex h-full flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm">
      <div className="aspect-[16/10] bg-slate-100">
        {image ? (
          <img src={image} alt="" {...imageSize(CARD_RENDITION)} loading="lazy" decoding="async" className="h-full w-full object-cover" />
        ) : (
          <div className="flex h-full items-center justify-center text-slate-400">
            <ImageIcon className="h-8 w-8" aria-hidden />
          </div>
        )}
      </div>
      <div className="flex flex-1 flex-col p-4">
        <div className="flex items-center justify-between gap-2">
          <Badge tone={badge.tone} className={badge.className}>
            <BadgeIcon className="h-3 w-3" aria-hidden /> {KIND_LABEL[t.kind]}
          </Badge>
          <span className="text-sm font-semibold text-slate-900">{formatPrice(t.price)}</span>
        </div>
        <h3 id={titleId} className="mt-2 break-words font-semibold text-slate-900">
          {t.title}
        </h3>
        {t.description && <p className="mt-1 line-clamp-2 text-sm text-slate-600">{t.description}</p>}
        {(shown.length > 0 || more > 0) && (
          <div className="mt-3 flex flex-wrap gap-1.5">
            {shown.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
            {more > 0 && <Badge tone="brand">+{more}</Badge>}
          </div>
        )}
        {t.kind === 'rejected' && (
          <div role="note" aria-label="Rejection details" className="mt-3 rounded-xl border border-red-200 bg-red-50 p-3 text-sm">
            <p className="font-semibold text-red-900">Rejection reason</p>
            <p className="mt-1 whitespace-pre-line break-words text-red-900">{t.rejection_comment || 'No reason was given.'}</p>
            {t.rejection_date && <p className="mt-2 text-xs text-red-800">Rejected on {formatDate(t.rejection_date)}</p>}
          </div>
        )}
        <div className="mt-auto pt-4">
          {t.date && t.kind !== 'rejected' && (
            <p className="mb-3 text-xs text-slate-500">
              {DATE_PREFIX[t.kind]} {formatDate(t.date)}
            </p>
          )}
          <div className="flex flex-wrap items-center gap-2">
            <ButtonLink to={edit.to} size="sm" variant={t.kind === 'draft' ? 'primary' : 'outline'}>
              <FileEdit className="h-4 w-4" aria-hidden /> {edit.label}
            </ButtonLink>
            {t.kind === 'published' && (
              <Link
                to={`/template/${encodeURIComponent(t.id)}`}
                className="inline-flex h-8 items-center gap-1 rounded-lg px-3 text-sm font-medium text-slate-700 hover:bg-slate-100 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
              >
                <ExternalLink className="h-4 w-4" aria-hidden /> View
              </Link>
            )}
            {canDelete(t.kind) && (
              <Button
                variant="dangerGhost"
                size="sm"
                className="ml-auto"
                onClick={() => onDelete(t)}
                disabled={deleting}
                aria-label={`Delete ${t.title}`}
              >
                <Trash2 className="h-4 w-4" aria-hidden /> {deleting ? 'Deleting...' : 'Delete'}
              </Button>
            )}
          </div>
        </div>
      </div>
    </article>
  )
}
