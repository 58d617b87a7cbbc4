import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface OwnOrder {
  id: string
  download_url: string | null
}

/** The user's order of the template, if they have one. */
export async function getUserOrder(templateId: string, userId: string): Promise<OwnOrder | null> {
  const { data, error } = await getSupabase()
    .from('orders')
    .select('id, download_url')
    .eq('buyer_id', userId)
    .eq('product_id', templateId)
    .limit(1)
  if (error) {
    logQuiet('reading the order', error)
    return null
  }
  return ((data ?? []) as OwnOrder[])[0] ?? null
}

export const userOrderQueryOptions = (templateId: string, userId: string) =>
  queryOptions({ queryKey: ['orders', 'of-template', templateId, userId], queryFn: () => getUserOrder(templateId, userId) })

export function useUserOrder(templateId: string, userId: string | undefined) {
  return useQuery({ ...userOrderQueryOptions(templateId, userId ?? ''), enabled: !!userId })
}
