import { lazy, Suspense, useEffect, type ReactNode } from 'react'
import { Link } from 'react-router'
import { ArrowLeft, BadgeCheck, Bookmark, CheckCircle2, Download, Eye, FileQuestion, Heart, ListChecks, Share2 } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Badge } from '@/components/ui/badge'
import { Button, ButtonLink } from '@/components/ui/button'
import { EmptyState, LoadError } from '@/components/ui/feedback'
import { PageSpinner } from '@/components/ui/page-spinner'
import { Container } from '@/components/ui/layout'
import { DEFAULT_INCLUDES, DEFAULT_REQUIREMENTS } from '@/config/constants'
import { browser } from '@/lib/browser'
import { cn, count, formatCount } from '@/lib/format'
import { usePageTitle } from '@/lib/page-title'
import { useSession } from '@/lib/session'
import { toastError, toastInfo, toastSuccess } from '@/lib/toast'
import { personName, profilePath, type Template } from '@/lib/types'
import { preloadedGalleryImage } from '@/lib/gallery-preload'
import { useTemplate } from '../api/get-template'
import { useUserUpvote } from '../api/get-user-upvote'
import { useToggleUpvote } from '../api/toggle-upvote'
import { useWishlistEntry } from '../api/get-wishlist-entry'
import { useToggleWishlist } from '../api/toggle-wishlist'
import { useSuggestions } from '../api/get-suggestions'
import { useTrackTemplateView } from '../api/track-template-view'
import { useLiveUpvoteCount } from '../hooks/use-live-upvote-count'
import { CreatorCard } from './creator-card'
import { Gallery, galleryImages, PreloadedImage } from './gallery'
import { LivePreview } from './live-preview'
import { PriceCard } from './price-card'
import { VersionNote } from './version-note'
import { OWN_TEMPLATE_NOTE, RatingSummary, RatingWidget } from './rating-widget'
import { ReviewsSection } from './reviews-section'
import { TemplateCard } from './template-card'

// The Markdown renderer (react-markdown and its sanitiser, a chunk of its own)
// loads beside the page rather than before it: About sits below the gallery,
// the title and the overview, and shows, whole, once it is there (issue 24).
const Markdown = lazy(() => import('@/components/ui/markdown').then((m) => ({ default: m.Markdown })))

function Actions({ template, userId }: { template: Template; userId: string | null }) {
  const upvoted = useUserUpvote(template.id, userId ?? undefined)
  const listed = useWishlistEntry(template.id, userId ?? undefined)
  const upvote = useToggleUpvote(template.id, userId ?? '')
  const wishlist = useToggleWishlist(template.id, userId ?? '')
  const share = async () => {
    try {
      await browser.copy(window.location.href)
      toastSuccess('Link Copied', 'Template link copied to clipboard.')
    } catch {
      toastError('An unexpected error occurred. Please try again.')
    }
  }
  const isUpvoted = !!upvoted.data
  const isListed = !!listed.data
  // A creator does not upvote their own template (the database refuses it).
  const own = !!userId && userId === template.user_id
  return (
    <div className="flex flex-wrap items-center gap-2">
      <LivePreview url={template.template_url} />
      <Button
        variant="outline"
        aria-pressed={isListed}
        disabled={wishlist.isPending}
        onClick={() => (userId ? wishlist.mutate(isListed) : toastInfo('Please sign in to use wishlist'))}
      >
        <Bookmark className={cn('h-4 w-4', isListed && 'fill-brand-600 text-brand-600')} aria-hidden />
        {isListed ? 'Wishlisted' : 'Wishlist'}
      </Button>
      <Button variant="outline" onClick={() => void share()}>
        <Share2 className="h-4 w-4" aria-hidden /> Share
      </Button>
      <Button
        variant={isUpvoted ? 'rose' : 'outline'}
        aria-pressed={isUpvoted}
        // The visible count is part of the name (WCAG 2.5.3, label in name): "Upvote 5".
        aria-label={`Upvote ${formatCount(template.upvote_count)}`}
        title={own ? OWN_TEMPLATE_NOTE : undefined}
        disabled={upvote.isPending || own}
        onClick={() => (userId ? upvote.mutate(isUpvoted) : toastInfo('Please sign in to upvote templates'))}
      >
        <Heart className={cn('h-4 w-4', isUpvoted && 'fill-rose-500 text-rose-500')} aria-hidden />
        <span data-testid="upvote-count">{formatCount(template.upvote_count)}</span>
      </Button>
    </div>
  )
}

function ListSection({ title, items, icon: Icon }: { title: string; items: string[]; icon: typeof ListChecks }) {
  return (
    <section className="rounded-2xl border border-slate-200 bg-white p-6">
      <h2 className="text-lg font-semibold text-slate-900">{title}</h2>
      <ul className="mt-3 grid gap-2 sm:grid-cols-2">
        {items.map((item) => (
          <li key={item} className="flex items-start gap-2 text-slate-700">
            <Icon className="mt-0.5 h-4 w-4 shrink-0 text-emerald-600" aria-hidden /> {item}
          </li>
        ))}
      </ul>
    </section>
  )
}

function Suggestions({ template }: { template: Template }) {
  const { data } = useSuggestions({ id: template.id, category_id: template.category_id, user_id: template.user_id })
  if (!data || data.length === 0) return null
  return (
    <section aria-labelledby="suggestions-heading" className="mt-16">
      <h2 id="suggestions-heading" className="mb-6 text-2xl font-bold tracking-tight text-slate-900">
        You May Also Like
      </h2>
      <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
        {data.map((t) => (
          <li key={t.id}>
            <TemplateCard template={t} />
          </li>
        ))}
      </ul>
    </section>
  )
}

/**
 * `follow`: the Follow button for the creator's card (the profiles feature's,
 * composed by the route, app/routes/template.tsx); not asked for on the
 * viewer's own template.
 */
export function TemplateDetailPage({ id, follow }: { id: string; follow?: (creatorId: string) => ReactNode }) {
  const { user } = useSession()
  const { data: template, isLoading, isError } = useTemplate(id)
  usePageTitle(template ? template.title : isLoading || isError ? undefined : 'Template Not Found')
  useTrackTemplateView(id, !!template)
  useLiveUpvoteCount(id, !!template)
  useEffect(() => {
    if (isError) toastError('Failed to load template')
  }, [isError])

  if (isLoading) {
    // The image the server preloaded shows at once, where the gallery will be (lib/gallery-preload.ts).
    const preloaded = preloadedGalleryImage(`/template/${id}`)
    if (!preloaded) return <PageSpinner label="Loading template..." />
    return (
      <Container className="pt-8">
        <div className="h-5" aria-hidden />
        <div className="mt-6">
          <PreloadedImage src={preloaded} />
        </div>
        <PageSpinner label="Loading template..." />
      </Container>
    )
  }
  // Not read (the server out of reach) is not "not found" (issue 24).
  if (isError && !template) {
    return (
      <Container className="py-16">
        <LoadError />
      </Container>
    )
  }
  if (!template) {
    return (
      <Container className="py-16">
        <EmptyState
          icon={<FileQuestion className="h-10 w-10" aria-hidden />}
          title="Template Not Found"
          titleAs="h1"
          description="The template you're looking for doesn't exist or has been removed."
          action={<ButtonLink to="/discover">Back to Discover</ButtonLink>}
        />
      </Container>
    )
  }
  const author = template.profile ? personName(template.profile) : (template.author ?? 'Unknown')
  const includes = template.features_included?.length ? template.features_included : DEFAULT_INCLUDES
  const requirements = template.requirements?.length ? template.requirements : DEFAULT_REQUIREMENTS
  const own = !!user && user.id === template.user_id
  return (
    // Room at the bottom on a phone for the price card's sticky action bar.
    <Container className="pb-28 pt-8 md:pb-8">
      <Link to="/discover" className="inline-flex items-center gap-1.5 rounded text-sm font-medium text-slate-700 hover:text-brand-700">
        <ArrowLeft className="h-4 w-4" aria-hidden /> Back to Templates
      </Link>
      {/* The gallery at the top, across the content width (issue 44, item 9). */}
      <div className="mt-6">
        <Gallery images={galleryImages(template.preview_image_url, template.preview_images)} title={template.title} />
      </div>
      <div className="mt-8 grid gap-8 lg:grid-cols-[1fr_22rem]">
        <div className="min-w-0 space-y-8">
          <div>
            <div className="flex flex-wrap items-center gap-2">
              <Badge tone="success">
                <BadgeCheck className="h-3.5 w-3.5" aria-hidden /> Real Template
              </Badge>
              {template.category && (
                <Link to={`/category/${template.category.slug}`} className="rounded-full focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500">
                  <Badge tone="brand">{template.category.name}</Badge>
                </Link>
              )}
            </div>
            <h1 className="mt-3 text-3xl font-bold tracking-tight text-slate-900 sm:text-4xl">{template.title}</h1>
            <div className="mt-3 flex flex-wrap items-center gap-x-6 gap-y-3">
              {template.profile ? (
                <Link to={profilePath(template.profile)} className="flex items-center gap-2 rounded text-slate-700 hover:text-brand-700">
                  <Avatar url={template.profile.avatar_url} name={author} size="sm" />
                  <span>by <span className="font-medium text-slate-900">{author}</span></span>
                </Link>
              ) : (
                <span className="text-slate-700">by {author}</span>
              )}
              <RatingSummary average={template.average_rating} total={template.total_ratings} />
              <span className="flex items-center gap-1 text-sm text-slate-700">
                <Download className="h-4 w-4" aria-hidden /> {count(template.downloads_count, 'download')}
              </span>
              <span className="flex items-center gap-1 text-sm text-slate-700">
                <Eye className="h-4 w-4" aria-hidden /> {count(template.total_views, 'view')}
              </span>
            </div>
            <div className="mt-4">
              <Actions template={template} userId={user?.id ?? null} />
            </div>
            {(template.tags ?? []).length > 0 && (
              <ul className="mt-4 flex flex-wrap gap-1.5" aria-label="Tags">
                {(template.tags ?? []).map((tag) => (
                  <li key={tag}><Badge>#{tag}</Badge></li>
                ))}
              </ul>
            )}
          </div>
          <VersionNote templateId={template.id} />
          <section className="rounded-2xl border border-slate-200 bg-white p-6">
            <h2 className="text-lg font-semibold text-slate-900">Quick Overview</h2>
            <p className="mt-2 text-slate-700">{template.description?.trim() || 'No description available for this template.'}</p>
          </section>
          {template.about_template?.trim() && (
            <Suspense fallback={null}>
              <section className="rounded-2xl border border-slate-200 bg-white p-6" aria-labelledby="about-heading">
                <h2 id="about-heading" className="mb-3 text-lg font-semibold text-slate-900">About this template</h2>
                <Markdown>{template.about_template}</Markdown>
              </section>
            </Suspense>
          )}
          <ListSection title="What's Included" items={includes} icon={CheckCircle2} />
          <ListSection title="Requirements" items={requirements} icon={ListChecks} />
          {template.profile && (
            <CreatorCard creator={template.profile} templateId={template.id} follow={own ? undefined : follow?.(template.profile.id)} />
          )}
          <ReviewsSection templateId={template.id} />
        </div>
        <aside className="space-y-6 lg:sticky lg:top-24 lg:self-start">
          <PriceCard template={template} user={user} />
          <RatingWidget templateId={template.id} userId={user?.id ?? null} own={own} />
        </aside>
      </div>
      <Suggestions template={template} />
    </Container>
  )
}
