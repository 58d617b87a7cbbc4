// Star rating (1 to 5) with an optional review. Submit stays disabled until a
// star is chosen; visitors are asked to sign in.
import { useEffect, useState } from 'react'
import { Star } from 'lucide-react'
import { Button } from '@/components/ui/button'
import { Textarea } from '@/components/ui/field'
import { cn, count, formatRating } from '@/lib/format'
import { toastError } from '@/lib/toast'
import { useUserRating } from '../api/get-user-rating'
import { useSubmitRating } from '../api/submit-rating'

export function Stars({ value, onPick, label }: { value: number; onPick?: (n: number) => void; label: string }) {
  const [hover, setHover] = useState(0)
  const shown = hover || value
  return (
    <div role={onPick ? 'radiogroup' : 'img'} aria-label={label} className="flex items-center gap-0.5" onMouseLeave={() => setHover(0)}>
      {[1, 2, 3, 4, 5].map((n) =>
        onPick ? (
          <button
            key={n}
            type="button"
            role="radio"
            aria-checked={value === n}
            aria-label={count(n, 'star')}
            onClick={() => onPick(n)}
            onMouseEnter={() => setHover(n)}
            className="rounded p-0.5 focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-brand-500"
          >
            <Star className={cn('h-6 w-6', n <= shown ? 'fill-amber-400 text-amber-400' : 'text-slate-300')} aria-hidden />
          </button>
        ) : (
          <Star key={n} className={cn('h-4 w-4', n <= Math.round(shown) ? 'fill-amber-400 text-amber-400' : 'text-slate-300')} aria-hidden />
        ),
      )}
    </div>
  )
}

/** Said wherever a template has no rating (issue 44: not "0.0 (0 ratings)"). */
export const NO_RATINGS = 'No ratings yet'

export function RatingSummary({ average, total }: { average: number | string; total: number }) {
  if (!(Number(total) > 0)) {
    return (
      <div className="flex items-center gap-2 text-sm text-slate-600" data-testid="rating-summary">
        <span aria-hidden>
          <Stars value={0} label="" />
        </span>
        <span>{NO_RATINGS}</span>
      </div>
    )
  }
  return (
    <div className="flex items-center gap-2 text-sm text-slate-700" data-testid="rating-summary">
      <Stars value={Number(average) || 0} label={`Rated ${formatRating(average)} out of 5`} />
      <span className="font-semibold text-slate-900">{formatRating(average)}</span>
      <span>({count(total, 'rating')})</span>
    </div>
  )
}

/**
 * Why a creator has no heart or stars on their own template. Our own wording,
 * not the spec's: the spec does not say how the owner's template page
 * differs. The database refuses such votes (policies/0302, 0303).
 */
export const OWN_TEMPLATE_NOTE = 'You cannot upvote or rate your own template.'

export function RatingWidget({ templateId, userId, own = false }: { templateId: string; userId: string | null; own?: boolean }) {
  if (own) {
    return (
      <div className="rounded-2xl border border-slate-200 bg-white p-5">
        <h3 className="font-semibold text-slate-900">Ratings</h3>
        <p className="mt-2 text-sm text-slate-600" data-testid="own-template-note">
          {OWN_TEMPLATE_NOTE}
        </p>
      </div>
    )
  }
  return <RatingForm templateId={templateId} userId={userId} />
}

function RatingForm({ templateId, userId }: { templateId: string; userId: string | null }) {
  const existing = useUserRating(templateId, userId ?? undefined)
  const [rating, setRating] = useState(0)
  const [review, setReview] = useState('')
  const submit = useSubmitRating(templateId, userId ?? '')
  useEffect(() => {
    if (existing.data) {
      setRating(existing.data.rating)
      setReview(existing.data.review_text ?? '')
    }
  }, [existing.data])

  const pick = (n: number) => {
    if (!userId) return toastError('Please sign in to rate templates', 'Sign in required')
    setRating(n)
  }
  return (
    <div className="rounded-2xl border border-slate-200 bg-white p-5">
      <h3 className="font-semibold text-slate-900">{existing.data ? 'Your rating' : 'Rate this template'}</h3>
      <form
        className="mt-3 space-y-3"
        onSubmit={(e) => {
          e.preventDefault()
          if (!userId) return toastError('Please sign in to rate templates', 'Sign in required')
          if (rating < 1) return
          submit.mutate({ rating, review })
        }}
      >
        <Stars value={rating} onPick={pick} label="Your rating" />
        <label htmlFor="rating-review" className="sr-only">Review (optional)</label>
        <Textarea
          id="rating-review"
          rows={3}
          placeholder="Write a short review (optional)"
          value={review}
          onChange={(e) => setReview(e.target.value)}
          disabled={!userId}
        />
        <Button type="submit" variant="secondary" disabled={rating < 1 || submit.isPending}>
          {submit.isPending ? 'Submitting...' : 'Submit Rating'}
        </Button>
      </form>
    </div>
  )
}
