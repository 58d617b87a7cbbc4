import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { Download, Heart, ImageIcon, Star } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { CARD_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { cn, count, formatCompact, formatPrice, formatRating } from '@/lib/format'
import { cardTags } from '@/lib/templates/card-tags'
import { personName, type Template } from '@/lib/types'

/**
 * A card's rating: the average with one decimal and a star, or "No ratings
 * yet" when nobody rated it (never "0.0 (0 ratings)", issue 44).
 */
export function CardRating({ average, total }: { average: number | string | null | undefined; total: number | null | undefined }) {
  const n = Number(total) || 0
  if (n <= 0) {
    return (
      <span className="text-xs text-slate-500 sm:text-sm" data-testid="card-rating">
        No ratings yet
      </span>
    )
  }
  return (
    <span className="flex items-center gap-1 text-xs text-slate-700 sm:text-sm" data-testid="card-rating" title={count(n, 'rating')}>
      <Star className="h-3.5 w-3.5 fill-amber-400 text-amber-500 sm:h-4 sm:w-4" aria-hidden />
      <span className="sr-only">Rated</span>
      <span className="font-semibold text-slate-900">{formatRating(average)}</span>
      <span className="sr-only">out of 5,</span>
      <span className="text-slate-500">({formatCompact(n)})</span>
      <span className="sr-only">{n === 1 ? 'rating' : 'ratings'}</span>
    </span>
  )
}

/**
 * A template's card. Below 640 px cards sit two to a row (TemplateGrid), so
 * there they are compact: smaller text and padding, the description and the
 * tags hidden, the price and the rating kept. `eager`: its preview is among the first things the page
 * shows (the first row of a page of cards), so it loads at once and first;
 * other previews load when they come near the screen.
 */
export function TemplateCard({
  template,
  rank,
  eager = false,
  action,
}: {
  template: Template
  rank?: number
  eager?: boolean
  /** A control of the card's own (the wishlist's Remove), above the card-wide link. */
  action?: ReactNode
}) {
  const { shown, more } = cardTags(template.tags)
  const price = formatPrice(template.price)
  return (
    <article className="group relative flex flex-col overflow-hidden rounded-2xl border border-slate-200 bg-white shadow-sm transition hover:-translate-y-0.5 hover:shadow-md focus-within:ring-2 focus-within:ring-brand-500">
      <div className="relative aspect-[16/10] overflow-hidden bg-slate-100">
        {template.preview_image_url ? (
          <img
            src={renditionUrl(template.preview_image_url, TEMPLATES_BUCKET, CARD_RENDITION) ?? undefined}
            alt=""
            {...imageSize(CARD_RENDITION)}
            loading={eager ? 'eager' : 'lazy'}
            decoding="async"
            fetchPriority={eager ? 'high' : undefined}
            className="h-full w-full object-cover transition duration-300 group-hover:scale-[1.03]"
          />
        ) : (
          <div className="flex h-full items-center justify-center text-slate-400">
            <ImageIcon className="h-10 w-10" aria-hidden />
          </div>
        )}
        <span
          className={cn(
            'absolute right-1.5 top-1.5 rounded-full px-2 py-0.5 text-xs font-semibold shadow-sm sm:right-3 sm:top-3 sm:px-2.5 sm:py-1',
            price === 'Free' ? 'bg-emerald-700 text-white' : 'bg-white text-slate-900',
          )}
        >
          {price}
        </span>
      </div>
      <div className="flex min-w-0 flex-1 flex-col p-2.5 sm:p-4">
        {/* The rank sits beside the category, not on the preview, where it covered the window's dots (issue 15, item 18). */}
        {(rank !== undefined || template.category) && (
          <p className="flex min-w-0 items-center gap-2 truncate text-[0.7rem] font-medium uppercase tracking-wide text-brand-700 sm:text-xs">
            {rank !== undefined && (
              <span className="rounded-full bg-slate-900 px-2 py-0.5 font-semibold normal-case tracking-normal text-white" data-testid="rank">
                #{rank}
              </span>
            )}
            {template.category?.name}
          </p>
        )}
        <h3 className="mt-1 line-clamp-2 break-words text-sm font-semibold text-slate-900 sm:text-base">
          <Link to={`/template/${template.id}`} className="after:absolute after:inset-0 focus-visible:outline-none">
            {template.title}
          </Link>
        </h3>
        <p className="mt-1 hidden text-sm text-slate-600 sm:line-clamp-2">{template.description}</p>
        <div className="mt-1.5 sm:mt-2">
          <CardRating average={template.average_rating} total={template.total_ratings} />
        </div>
        {(shown.length > 0 || more > 0) && (
          <div className="mt-3 hidden flex-wrap gap-1.5 sm:flex">
            {shown.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
            {more > 0 && <Badge tone="brand">+{more}</Badge>}
          </div>
        )}
        <div className="mt-auto flex flex-wrap items-center justify-between gap-x-2 gap-y-1 pt-2 text-xs text-slate-600 sm:flex-nowrap sm:pt-4 sm:text-sm">
          <span className="min-w-0 truncate max-sm:w-full">by {template.profile ? personName(template.profile) : (template.author ?? 'Unknown')}</span>
          <span className="flex shrink-0 items-center gap-2 sm:gap-3">
            <span className="flex items-center gap-1" title="Upvotes">
              <Heart className="h-3.5 w-3.5 sm:h-4 sm:w-4" aria-hidden />
              <span className="sr-only">Upvotes:</span> {formatCompact(template.upvote_count)}
            </span>
            <span className="flex items-center gap-1" title="Downloads">
              <Download className="h-3.5 w-3.5 sm:h-4 sm:w-4" aria-hidden />
              <span className="sr-only">Downloads:</span> {formatCompact(template.downloads_count)}
            </span>
          </span>
        </div>
        {action && <div className="relative z-10 mt-3">{action}</div>}
      </div>
    </article>
  )
}

/** The widest grid's first row: the cards a page of cards shows first. */
export const FIRST_ROW = 4

/** `eager`: how many leading cards load their previews at once (a page whose cards come first: FIRST_ROW). */
export function TemplateGrid({
  templates,
  ranked = false,
  eager = 0,
  action,
}: {
  templates: Template[]
  ranked?: boolean
  eager?: number
  /** A control for each card (see TemplateCard's `action`). */
  action?: (template: Template) => ReactNode
}) {
  return (
    // Two cards a row on phones (compact cards), more from 640 px.
    <ul className="grid grid-cols-2 gap-3 sm:gap-6 lg:grid-cols-3 xl:grid-cols-4" data-testid="template-grid">
      {templates.map((t, i) => (
        <li key={t.id} className="flex min-w-0">
          <div className="w-full min-w-0">
            <TemplateCard template={t} rank={ranked ? i + 1 : undefined} eager={i < eager} action={action?.(t)} />
          </div>
        </li>
      ))}
    </ul>
  )
}

export function TemplateGridSkeleton({ count = 4 }: { count?: number }) {
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-6 lg:grid-cols-3 xl:grid-cols-4" aria-hidden>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className="overflow-hidden rounded-2xl border border-slate-200 bg-white">
          <div className="aspect-[16/10] animate-pulse bg-slate-200" />
          <div className="space-y-2 p-2.5 sm:p-4">
            <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200" />
            <div className="h-3 w-full animate-pulse rounded bg-slate-200" />
          </div>
        </div>
      ))}
    </div>
  )
}
