// Ratings & reviews on the template page (issue 44, item 7): the breakdown
// (the average with one decimal, then each star 5 to 1 with a bar and its
// count) and the written reviews, newest first, five at a time behind
// "Show more". A template without ratings says "No ratings yet".
import { useState } from 'react'
import { Link } from 'react-router'
import { Loader2, MessageSquareText } from 'lucide-react'
import { Avatar } from '@/components/ui/avatar'
import { Button } from '@/components/ui/button'
import { LoadError } from '@/components/ui/feedback'
import { count, formatCount, formatDate, formatRating } from '@/lib/format'
import { personName, profilePath } from '@/lib/types'
import { sharePercent, useRatingBreakdown, type RatingBreakdown } from '../api/get-rating-breakdown'
import { REVIEWS_PAGE, useTemplateReviews, type TemplateReview } from '../api/get-template-reviews'
import { NO_RATINGS, Stars } from './rating-widget'

export function RatingBreakdownView({ breakdown }: { breakdown: RatingBreakdown }) {
  if (breakdown.total === 0) {
    return (
      <p className="text-sm text-slate-600" data-testid="rating-breakdown">
        {NO_RATINGS}
      </p>
    )
  }
  return (
    <div className="grid gap-5 sm:grid-cols-[auto_1fr] sm:items-center sm:gap-8" data-testid="rating-breakdown">
      <div className="flex flex-col items-start gap-1 sm:items-center">
        <p className="text-4xl font-extrabold tracking-tight text-slate-900" data-testid="rating-average">
          {formatRating(breakdown.average)}
        </p>
        <Stars value={breakdown.average} label={`Rated ${formatRating(breakdown.average)} out of 5`} />
        <p className="text-sm text-slate-600">{count(breakdown.total, 'rating')}</p>
      </div>
      <ul className="space-y-1.5" aria-label="Ratings by stars">
        {breakdown.rows.map((row) => {
          const percent = sharePercent(row.count, breakdown.total)
          return (
            <li key={row.stars} className="flex items-center gap-3 text-sm" data-testid={`stars-${row.stars}`} data-count={row.count}>
              <span className="w-12 shrink-0 text-slate-700">
                {row.stars} star{row.stars === 1 ? '' : 's'}
              </span>
              <span aria-hidden className="h-2.5 flex-1 overflow-hidden rounded-full bg-slate-100">
                <span className="block h-full rounded-full bg-amber-400" style={{ width: `${percent}%` }} data-testid="bar" />
              </span>
              <span className="w-12 shrink-0 text-right tabular-nums text-slate-600">
                {formatCount(row.count)}
                <span className="sr-only"> {row.count === 1 ? 'rating' : 'ratings'}, {percent}%</span>
              </span>
            </li>
          )
        })}
      </ul>
    </div>
  )
}

function Review({ review }: { review: TemplateReview }) {
  const reviewer = {
    id: review.reviewer_id,
    username: review.reviewer_username,
    display_name: review.reviewer_display_name,
  }
  const name = personName(reviewer)
  return (
    <li className="border-t border-slate-100 py-5 first:border-t-0 first:pt-0" data-testid="review">
      <div className="flex items-start gap-3">
        <Link to={profilePath(reviewer)} className="shrink-0 rounded-full" tabIndex={-1} aria-hidden>
          <Avatar url={review.reviewer_avatar_url} name={name} size="sm" />
        </Link>
        <div className="min-w-0 flex-1">
          <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
            <Link to={profilePath(reviewer)} className="rounded font-medium text-slate-900 hover:text-brand-700" data-testid="reviewer">
              {name}
            </Link>
            <Stars value={review.rating} label={`Rated ${count(review.rating, 'star')} out of 5`} />
            <time dateTime={review.created_at} className="text-sm text-slate-500">
              {formatDate(review.created_at)}
            </time>
          </div>
          <p className="mt-2 whitespace-pre-line break-words text-slate-700" data-testid="review-text">
            {review.review_text}
          </p>
        </div>
      </div>
    </li>
  )
}

function ReviewList({ templateId }: { templateId: string }) {
  const [limit, setLimit] = useState(REVIEWS_PAGE)
  const { data, isError, isFetching, refetch } = useTemplateReviews(templateId, limit)
  if (isError && !data) return <LoadError compact title="We couldn't load the reviews" onRetry={() => refetch()} />
  if (!data) return null
  if (data.reviews.length === 0) {
    return (
      <p className="flex items-center gap-2 text-sm text-slate-600">
        <MessageSquareText className="h-4 w-4" aria-hidden /> No written reviews yet.
      </p>
    )
  }
  const more = data.total > data.reviews.length
  return (
    <div>
      <h3 className="mb-4 font-semibold text-slate-900" data-testid="reviews-count">
        {count(data.total, 'review')}
      </h3>
      <ul aria-label="Reviews">
        {data.reviews.map((review) => (
          <Review key={review.id} review={review} />
        ))}
      </ul>
      {more && (
        <Button variant="outline" className="mt-2" disabled={isFetching} aria-busy={isFetching} onClick={() => setLimit((n) => n + REVIEWS_PAGE)}>
          {isFetching && <Loader2 className="h-4 w-4 animate-spin" aria-hidden />} Show more reviews
        </Button>
      )}
    </div>
  )
}

export function ReviewsSection({ templateId }: { templateId: string }) {
  const breakdown = useRatingBreakdown(templateId)
  return (
    <section aria-labelledby="reviews-heading" className="rounded-2xl border border-slate-200 bg-white p-6" data-testid="reviews-section">
      <h2 id="reviews-heading" className="mb-4 text-lg font-semibold text-slate-900">
        Ratings &amp; reviews
      </h2>
      {breakdown.isError && !breakdown.data ? (
        <LoadError compact title="We couldn't load the ratings" onRetry={() => breakdown.refetch()} />
      ) : breakdown.data ? (
        <RatingBreakdownView breakdown={breakdown.data} />
      ) : null}
      {breakdown.data && breakdown.data.total > 0 && (
        <div className="mt-6 border-t border-slate-100 pt-6">
          <ReviewList templateId={templateId} />
        </div>
      )}
    </section>
  )
}
