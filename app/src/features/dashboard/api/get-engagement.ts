// The Engagement Statistics of the user's templates: upvotes, downloads,
// views, favorites (wishlist entries), the average rating and the number of
// templates.
//
// Wishlists are private to their users, so the favorites are counted by the
// RPC get_template_wishlist_counts (counts only, only for the caller's own
// templates: migrations/20261123000200_template_wishlist_counts.sql).
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { averageRating } from '../model'

export interface EngagementRow {
  id: string
  downloads_count: number | null
  total_views: number | null
  average_rating: number | string | null
  total_ratings: number | null
}

export interface Engagement {
  upvotes: number
  downloads: number
  views: number
  favorited: number
  avgRating: number
  totalTemplates: number
}

/**
 * The statistics from the template rows and the upvote and favorite counts.
 * Total Templates counts the user's rows in `templates` (what engagement is
 * measured on); drafts, pending and rejected ones are in the status overview.
 */
export function computeEngagement(rows: EngagementRow[], upvotes: number, favorited: number): Engagement {
  const sum = (pick: (r: EngagementRow) => number | null) => rows.reduce((total, r) => total + (Number(pick(r)) || 0), 0)
  return {
    upvotes,
    downloads: sum((r) => r.downloads_count),
    views: sum((r) => r.total_views),
    favorited,
    avgRating: averageRating(rows.map((r) => r.average_rating)),
    totalTemplates: rows.length,
  }
}

/** How many wishlists hold the caller's templates (counts only: wishlists are private). */
async function countFavorites(templateIds: string[]): Promise<number> {
  const { data, error } = await getSupabase().rpc('get_template_wishlist_counts', { template_ids: templateIds })
  if (error) throw error
  return (data ?? []).reduce((n, r) => n + (Number(r.wishlist_count) || 0), 0)
}

export async function getEngagement(userId: string): Promise<Engagement> {
  const supabase = getSupabase()
  const { data, error } = await supabase
    .from('templates')
    .select('id, downloads_count, total_views, average_rating, total_ratings')
    .eq('user_id', userId)
  if (error) throw error
  const rows = (data ?? []) as EngagementRow[]
  const ids = rows.map((r) => r.id)
  if (ids.length === 0) return computeEngagement(rows, 0, 0)
  const [upvotes, favorited] = await Promise.all([
    supabase
      .from('template_upvotes')
      .select('template_id', { count: 'exact', head: true })
      .in('template_id', ids)
      .then(({ count, error: e }) => {
        if (e) throw e
        return count ?? 0
      }),
    countFavorites(ids),
  ])
  return computeEngagement(rows, upvotes, favorited)
}

export const engagementQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['dashboard', 'engagement', userId], queryFn: () => getEngagement(userId) })

export function useEngagement(userId: string | undefined) {
  return useQuery({ ...engagementQueryOptions(userId ?? ''), enabled: !!userId })
}
