// Profiles, categories and upvote counts are read by ids and merged into the
// template rows (spec section 7). A failure of these side reads is quiet: the
// templates still show, with counts defaulting to 0. Shared by every read of
// template rows (the templates feature's lists and detail, the wishlist).
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'
import type { Category, ProfileSummary, Template, TemplateRow } from '@/lib/types'

function unique(values: Array<string | null | undefined>): string[] {
  return [...new Set(values.filter((v): v is string => !!v))]
}

export async function readUpvoteCounts(templateIds: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>()
  if (templateIds.length === 0) return counts
  const { data, error } = await getSupabase()
    .from('template_upvote_counts')
    .select('template_id, upvote_count')
    .in('template_id', templateIds)
  if (error) {
    logQuiet('reading upvote counts', error)
    return counts
  }
  for (const row of (data ?? []) as Array<{ template_id: string; upvote_count: number }>) {
    counts.set(row.template_id, Number(row.upvote_count) || 0)
  }
  return counts
}

export async function enrichTemplates(rows: TemplateRow[]): Promise<Template[]> {
  if (rows.length === 0) return []
  const supabase = getSupabase()
  const userIds = unique(rows.map((r) => r.user_id))
  const categoryIds = unique(rows.map((r) => r.category_id))
  const [profiles, categories, upvotes] = await Promise.all([
    supabase.from('profiles').select('id, username, display_name, avatar_url').in('id', userIds),
    categoryIds.length
      ? supabase.from('categories').select('id, name, slug').in('id', categoryIds)
      : Promise.resolve({ data: [], error: null }),
    readUpvoteCounts(rows.map((r) => r.id)),
  ])
  if (profiles.error) logQuiet('reading template creators', profiles.error)
  if (categories.error) logQuiet('reading template categories', categories.error)
  const profileById = new Map(((profiles.data ?? []) as ProfileSummary[]).map((p) => [p.id, p]))
  const categoryById = new Map(
    ((categories.data ?? []) as Array<Pick<Category, 'id' | 'name' | 'slug'>>).map((c) => [c.id, c]),
  )
  return rows.map((row) => ({
    ...row,
    profile: profileById.get(row.user_id) ?? null,
    category: row.category_id ? (categoryById.get(row.category_id) ?? null) : null,
    upvote_count: upvotes.get(row.id) ?? 0,
  }))
}
