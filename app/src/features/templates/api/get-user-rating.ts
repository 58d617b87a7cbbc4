import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface UserRating {
  rating: number
  review_text: string | null
}

/**
 * The user's own rating of the template, if any. Read with `maybeSingle()`:
 * no rating is an empty answer, not a 406 in the browser's console.
 */
export async function getUserRating(templateId: string, userId: string): Promise<UserRating | null> {
  const { data, error } = await getSupabase()
    .from('template_ratings')
    .select('rating, review_text')
    .eq('template_id', templateId)
    .eq('user_id', userId)
    .maybeSingle()
  if (error) throw error
  return (data as UserRating | null) ?? null
}

export const userRatingQueryOptions = (templateId: string, userId: string) =>
  queryOptions({ queryKey: ['templates', 'rating', templateId, userId], queryFn: () => getUserRating(templateId, userId) })

export function useUserRating(templateId: string, userId: string | undefined) {
  return useQuery({ ...userRatingQueryOptions(templateId, userId ?? ''), enabled: !!userId })
}
