// The user's wishlist: wishlist rows by user_id with the template joined,
// newest first, then the templates' creators, categories and upvote counts
// merged in as on every other grid. Templates no longer published (or no
// longer readable) drop out.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import type { Template, TemplateRow } from '@/lib/types'
import { TEMPLATE_LIST_COLUMNS } from '@/lib/templates/list-columns'
import { enrichTemplates } from '@/lib/templates/enrich'

interface WishlistRow {
  template_id: string
  created_at: string
  template: TemplateRow | null
}

export async function getWishlist(userId: string): Promise<Template[]> {
  const { data, error } = await getSupabase()
    .from('wishlist')
    .select(`template_id, created_at, template:templates(${TEMPLATE_LIST_COLUMNS})`)
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
  if (error) throw error
  const rows = ((data ?? []) as unknown as WishlistRow[])
    .map((r) => r.template)
    .filter((t): t is TemplateRow => !!t && t.is_published)
  return enrichTemplates(rows)
}

// Under ['wishlist', 'list'], which the template page's wishlist toggle invalidates.
export const wishlistQueryOptions = (userId: string) =>
  queryOptions({ queryKey: ['wishlist', 'list', userId], queryFn: () => getWishlist(userId) })

export function useWishlist(userId: string | undefined) {
  return useQuery({ ...wishlistQueryOptions(userId ?? ''), enabled: !!userId })
}
