// A template's written reviews, newest first, with each reviewer's public
// profile (the view public.template_reviews: ratings with a text only, no
// e-mail, nothing private).
// "Show more" asks for a longer list: the first `limit` reviews, and the
// exact number of reviews there are.
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export const REVIEWS_PAGE = 5

export interface TemplateReview {
  id: string
  template_id: string
  rating: number
  review_text: string
  created_at: string
  reviewer_id: string
  reviewer_username: string | null
  reviewer_display_name: string | null
  reviewer_avatar_url: string | null
}

export interface ReviewsPage {
  reviews: TemplateReview[]
  /** How many written reviews the template has in all. */
  total: number
}

export async function getTemplateReviews(templateId: string, limit: number): Promise<ReviewsPage> {
  const { data, error, count } = await getSupabase()
    .from('template_reviews')
    .select(
      'id, template_id, rating, review_text, created_at, reviewer_id, reviewer_username, reviewer_display_name, reviewer_avatar_url',
      { count: 'exact' },
    )
    .eq('template_id', templateId)
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .limit(limit)
  if (error) throw error
  const reviews = (data ?? []) as TemplateReview[]
  return { reviews, total: count ?? reviews.length }
}

export const templateReviewsQueryOptions = (templateId: string, limit: number) =>
  queryOptions({
    queryKey: ['templates', 'reviews', templateId, limit],
    queryFn: () => getTemplateReviews(templateId, limit),
  })

export function useTemplateReviews(templateId: string, limit: number) {
  // The longer list replaces the shorter one when it arrives: the reviews
  // shown stay in place meanwhile (and so does the scroll position).
  return useQuery({ ...templateReviewsQueryOptions(templateId, limit), placeholderData: keepPreviousData })
}
