// One order of the signed-in buyer (orders by id; row-level security shows
// a buyer only their own), with its template's title and preview when the
// template is still listed.
import { queryOptions, useQuery } from '@tanstack/react-query'
import { getSupabase } from '@/lib/supabase'
import { isUuid } from '@/lib/format'
import { logQuiet } from '@/lib/log'

export interface OrderDownload {
  id: string
  product_id: string
  download_url: string | null
  template: { title: string; preview_image_url: string | null } | null
}

/** The order, or null when there is none the user may see. */
export async function getOrder(orderId: string): Promise<OrderDownload | null> {
  // An id that is not a uuid names no order (the server would answer 22P02).
  if (!isUuid(orderId)) return null
  const supabase = getSupabase()
  const { data, error } = await supabase.from('orders').select('id, product_id, download_url').eq('id', orderId).maybeSingle()
  if (error) {
    if (error.code === '22P02' || error.code === 'PGRST116') return null
    throw error
  }
  if (!data) return null
  const order = data as { id: string; product_id: string; download_url: string | null }
  const { data: template, error: templateError } = await supabase
    .from('templates')
    .select('title, preview_image_url')
    .eq('id', order.product_id)
    .maybeSingle()
  if (templateError) logQuiet('reading the template of an order', templateError)
  return { ...order, template: (template as OrderDownload['template']) ?? null }
}

export const orderQueryOptions = (orderId: string) =>
  queryOptions({ queryKey: ['orders', 'detail', orderId], queryFn: () => getOrder(orderId) })

export function useOrder(orderId: string, enabled: boolean) {
  return useQuery({ ...orderQueryOptions(orderId), enabled })
}
