import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'

/** Whether the template is on the user's wishlist. */
export async function getWishlistEntry(templateId: string, userId: string): Promise<boolean> {
  const { data, error } = await getSupabase()
    .from('wishlist')
    .select('template_id')
    .eq('template_id', templateId)
    .eq('user_id', userId)
    .maybeSingle()
  if (error && error.code !== 'PGRST116') throw error
  return !!data
}

export const wishlistEntryQueryOptions = (templateId: string, userId: string) =>
  queryOptions({ queryKey: ['wishlist', 'entry', templateId, userId], queryFn: () => getWishlistEntry(templateId, userId) })

export function useWishlistEntry(templateId: string, userId: string | undefined) {
  return useQuery({ ...wishlistEntryQueryOptions(templateId, userId ?? ''), enabled: !!userId })
}
