import { Link } from 'react-router'
import { Download, Heart, ImageIcon } from 'lucide-react'
import { Badge } from '@/components/ui/badge'
import { TEMPLATES_BUCKET } from '@/config/constants'
import { CARD_RENDITION, imageSize, renditionUrl } from '@/lib/image-url'
import { cn, formatCompact, formatPrice } from '@/lib/format'
import { cardTags } from '@/lib/templates/card-tags'
import { personName, type Template } from '@/lib/types'

/**
 * A template's card. `eager`: its preview is among the first things the page
 * shows (the first row of a page of cards), so it loads at once and first;
 * other previews load when they come near the screen.
 */
export function TemplateCard({ template, rank, eager = false }: { template: Template; rank?: number; eager?: boolean }) {
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
            'absolute right-3 top-3 rounded-full px-2.5 py-1 text-xs font-semibold shadow-sm',
            price === 'Free' ? 'bg-emerald-700 text-white' : 'bg-white text-slate-900',
          )}
        >
          {price}
        </span>
      </div>
      <div className="flex flex-1 flex-col p-4">
        {/* The rank sits beside the category, not on the preview, where it covered the window's dots (issue 15, item 18). */}
        {(rank !== undefined || template.category) && (
          <p className="flex items-center gap-2 text-xs font-medium uppercase tracking-wide text-brand-700">
            {rank !== undefined && (
              <span className="rounded-full bg-slate-900 px-2 py-0.5 font-semibold normal-case tracking-normal text-white" data-testid="rank">
                #{rank}
              </span>
            )}
            {template.category?.name}
          </p>
        )}
        <h3 className="mt-1 text-base font-semibold text-slate-900">
          <Link to={`/template/${template.id}`} className="after:absolute after:inset-0 focus-visible:outline-none">
            {template.title}
          </Link>
        </h3>
        <p className="mt-1 line-clamp-2 text-sm text-slate-600">{template.description}</p>
        {(shown.length > 0 || more > 0) && (
          <div className="mt-3 flex flex-wrap gap-1.5">
            {shown.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
            {more > 0 && <Badge tone="brand">+{more}</Badge>}
          </div>
        )}
        <div className="mt-auto flex items-center justify-between pt-4 text-sm text-slate-600">
          <span className="truncate">by {template.profile ? personName(template.profile) : (template.author ?? 'Unknown')}</span>
          <span className="flex shrink-0 items-center gap-3">
            <span className="flex items-center gap-1" title="Upvotes">
              <Heart className="h-4 w-4" aria-hidden />
              <span className="sr-only">Upvotes:</span> {formatCompact(template.upvote_count)}
            </span>
            <span className="flex items-center gap-1" title="Downloads">
              <Download className="h-4 w-4" aria-hidden />
              <span className="sr-only">Downloads:</span> {formatCompact(template.downloads_count)}
            </span>
          </span>
        </div>
      </div>
    </article>
  )
}

/** The widest grid's first row: the cards a page of cards shows first. */
export const FIRST_ROW = 4

/** `eager`: how many leading cards load their previews at once (a page whose cards come first: FIRST_ROW). */
export function TemplateGrid({ templates, ranked = false, eager = 0 }: { templates: Template[]; ranked?: boolean; eager?: number }) {
  return (
    <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4">
      {templates.map((t, i) => (
        <li key={t.id} className="flex">
          <div className="w-full">
            <TemplateCard template={t} rank={ranked ? i + 1 : undefined} eager={i < eager} />
          </div>
        </li>
      ))}
    </ul>
  )
}

export function TemplateGridSkeleton({ count = 4 }: { count?: number }) {
  return (
    <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3 xl:grid-cols-4" aria-hidden>
      {Array.from({ length: count }, (_, i) => (
        <div key={i} className="overflow-hidden rounded-2xl border border-slate-200 bg-white">
          <div className="aspect-[16/10] animate-pulse bg-slate-200" />
          <div className="space-y-2 p-4">
            <div className="h-4 w-2/3 animate-pulse rounded bg-slate-200" />
            <div className="h-3 w-full animate-pulse rounded bg-slate-200" />
          </div>
        </div>
      ))}
    </div>
  )
}
