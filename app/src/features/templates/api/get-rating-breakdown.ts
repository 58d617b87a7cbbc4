// How many ratings each star (5 to 1) has (the view
// public.template_rating_counts), for the template page's breakdown.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

export interface StarCount {
  stars: 1 | 2 | 3 | 4 | 5
  count: number
}

export interface RatingBreakdown {
  /** Five rows, 5 stars first; a star without ratings counts 0. */
  rows: StarCount[]
  total: number
  /** The mean of the counts (0 with none). */
  average: number
}

/** The breakdown from the per-star rows the view answers (any order, any missing). */
export function breakdownOf(counts: Array<{ rating: number; ratings: number }>): RatingBreakdown {
  const byStar = new Map<number, number>()
  for (const c of counts) {
    const stars = Number(c.rating)
    const n = Number(c.ratings)
    if (Number.isInteger(stars) && stars >= 1 && stars <= 5 && Number.isFinite(n) && n > 0) {
      byStar.set(stars, (byStar.get(stars) ?? 0) + n)
    }
  }
  const rows = ([5, 4, 3, 2, 1] as const).map((stars) => ({ stars, count: byStar.get(stars) ?? 0 }))
  const total = rows.reduce((sum, r) => sum + r.count, 0)
  const average = total ? rows.reduce((sum, r) => sum + r.stars * r.count, 0) / total : 0
  return { rows, total, average }
}

/** A star's share of all ratings, in whole percent (0 when there are none). */
export function sharePercent(count: number, total: number): number {
  return total > 0 ? Math.round((count / total) * 100) : 0
}

export async function getRatingBreakdown(templateId: string): Promise<RatingBreakdown> {
  const { data, error } = await getSupabase()
    .from('template_rating_counts')
    .select('rating, ratings')
    .eq('template_id', templateId)
  if (error) throw error
  return breakdownOf((data ?? []) as Array<{ rating: number; ratings: number }>)
}

export const ratingBreakdownQueryOptions = (templateId: string) =>
  queryOptions({ queryKey: ['templates', 'rating-breakdown', templateId], queryFn: () => getRatingBreakdown(templateId) })

export function useRatingBreakdown(templateId: string) {
  return useQuery(ratingBreakdownQueryOptions(templateId))
}
