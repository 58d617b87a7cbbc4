import { useMutation, useQueryClient } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { toastError, toastSuccess } from '@/lib/toast'
import { userRatingQueryOptions } from './get-user-rating'
import { templateQueryOptions } from './get-template'
import { ratingBreakdownQueryOptions } from './get-rating-breakdown'

export interface RatingInput {
  rating: number
  review: string
}

/** Upserts the user's rating; the review is trimmed and null when empty. */
export async function submitRating(templateId: string, userId: string, input: RatingInput): Promise<void> {
  const review = input.review.trim()
  const { error } = await getSupabase()
    .from('template_ratings')
    .upsert(
      { template_id: templateId, user_id: userId, rating: input.rating, review_text: review === '' ? null : review },
      { onConflict: 'template_id,user_id' },
    )
  if (error) throw error
}

export function useSubmitRating(templateId: string, userId: string) {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: (input: RatingInput) => submitRating(templateId, userId, input),
    onSuccess: () => {
      toastSuccess('Rating submitted', 'Thank you for your rating!')
      void queryClient.invalidateQueries({ queryKey: userRatingQueryOptions(templateId, userId).queryKey })
      void queryClient.invalidateQueries({ queryKey: templateQueryOptions(templateId).queryKey })
      // The page's breakdown and review list (every length of it) count the new rating.
      void queryClient.invalidateQueries({ queryKey: ratingBreakdownQueryOptions(templateId).queryKey })
      void queryClient.invalidateQueries({ queryKey: ['templates', 'reviews', templateId] })
    },
    onError: () => toastError('Failed to submit rating. Please try again.'),
  })
}
