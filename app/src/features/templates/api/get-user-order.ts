import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { logQuiet } from '@/lib/log'

export interface OwnOrder {
  id: string
  download_url: string | null
}

/** The user's order of the template that opens its download (paid or free), if they have one. */
export async function getUserOrder(templateId: string, userId: string): Promise<OwnOrder | null> {
  const { data, error } = await getSupabase()
    .from('orders')
    .select('id, download_url')
    .eq('buyer_id', userId)
    .eq('product_id', templateId)
    // A pending or failed payment owns nothing.
    .in('payment_status', ['paid', 'free'])
    .order('created_at', { ascending: true })
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
